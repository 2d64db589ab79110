/**
 * Run by the runner before its pool of test processes (run-tests.mjs), with the tests' TMPDIR: makes the PGlite
 * template the stores start from (src/store/pglite-template.ts: the migrated dump and its unpacked copy) when it is
 * missing, so it is made once. Without it, every process that opens a store before the template exists makes one
 * of its own (PostgreSQL's bootstrap in WASM and every migration, several seconds of CPU each): on a machine
 * without the template (a new CI machine, a changed migration) the first minute of `npm test` made it a dozen
 * times over — crash-safety's seven Hush processes alone spent 144 s of CPU against 101 s with it in place.
 * The directories given as arguments get a copy too: the system's temporary directory, where the children
 * started with an environment of the test's making (no TMPDIR: the admin CLI, start errors) look for it.
 * A store opened here in a directory of its own, then removed: it proves nothing, the tests do.
 */
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openDb } from '../../src/store/open-db.ts';
import { templateDirPath, templatePath } from '../../src/store/pglite-template.ts';
import { systemClock } from '../../src/support/clock.ts';

const dir = mkdtempSync(join(tmpdir(), 'hush-template-prep-'));
try {
  const db = await openDb({ dataDir: dir, clock: systemClock });
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Copied under a temporary name, then renamed, as the template itself is written: a reader never sees half of it.
for (const other of process.argv.slice(2).filter((d) => d !== tmpdir())) {
  for (const made of [templatePath(), templateDirPath()]) {
    const path = join(other, basename(made));
    if (!existsSync(made) || existsSync(path)) continue;
    const tmp = `${path}.${process.pid}.${Date.now()}`;
    cpSync(made, tmp, { recursive: true });
    try {
      renameSync(tmp, path);
    } catch {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}
