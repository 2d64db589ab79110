import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Embedded mode's retired seeds: DATA_DIR/treasury-seed-retired, one hex seed a line, mode 0600. */
export const RETIRED_SEED_FILE = 'treasury-seed-retired';

export function retiredSeedLines(dataDir: string): string[] {
  const path = join(dataDir, RETIRED_SEED_FILE);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '');
}

/**
 * Rotates embedded mode's seed file (docs/operations.md "Rotate the treasury seed"), with Hush stopped: the
 * current seed is appended to the retired file first (a crash between the two writes leaves it in both, which
 * the worker reads as no rotation yet: never a seed lost), then a new one replaces it through a rename.
 */
export function rotateSeedFile(dataDir: string): { retired: number } {
  const current = join(dataDir, 'treasury-seed');
  if (!existsSync(current)) throw new Error(`no seed file at ${current}: nothing to rotate (TREASURY_SEED deployments rotate by environment)`);
  const seed = readFileSync(current, 'utf8').trim();
  if (!retiredSeedLines(dataDir).includes(seed)) appendFileSync(join(dataDir, RETIRED_SEED_FILE), `${seed}\n`, { mode: 0o600 });
  const next = `${current}.next`;
  writeFileSync(next, randomBytes(32).toString('hex'), { mode: 0o600 });
  renameSync(next, current);
  return { retired: retiredSeedLines(dataDir).length };
}
