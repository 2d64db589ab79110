/** A blocked-address list for a bench's Hush (HUSH_SCREENING_LISTS): `n` random addresses, none a bench wallet. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAddressDecoder } from '@solana/kit';

/** The list's path in `dir` ('' for n = 0: screening off). */
export function screeningList(dir: string, n: number): string {
  if (n <= 0) return '';
  const decoder = getAddressDecoder();
  const lines = Array.from({ length: n }, () => decoder.decode(randomBytes(32)));
  const path = join(dir, 'blocked-addresses.txt');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
