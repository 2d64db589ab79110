import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The text of a secret kept in DATA_DIR (embedded mode), made on first use as 32 random bytes in hex,
 * mode 0600; when several processes start at once, the first writer's secret is everyone's.
 */
export function secretFileText(dataDir: string, name: string): { path: string; text: string } {
  const path = join(dataDir, name);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return { path, text: readFileSync(path, 'utf8') };
}
