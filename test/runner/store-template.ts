/**
 * Run by the runner before its pool of test processes (run-tests.mjs), with the tests' TMPDIR: makes the PGlite
 * template the stores start from (src/store/pglite-template.ts: the migrated dump and its unpacked copy) when it is
 * missing, so it is made once. Without it, every process that opens a store before the template exists makes one
 * of its own (PostgreSQL's bootstrap in WASM and every migration, several seconds of CPU each): on a machine
 * without the template (a new CI machine, a changed migration) the first minute of `npm test` made it a dozen
 * times over — crash-safety's seven Hush processes alone spent 144 s of CPU against 101 s with it in place.
 * A store opened here in a directory of its own, then removed: it proves nothing, the tests do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock } from '../../src/support/clock.ts';

const dir = mkdtempSync(join(tmpdir(), 'hush-template-prep-'));
try {
  const db = await openDb({ dataDir: dir, clock: systemClock });
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
