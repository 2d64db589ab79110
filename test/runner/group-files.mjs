// What each test process runs: an entry of one file, or a group of the short CPU-bound files.
// Each test process pays for itself before its first test: node's start, loading the bundle and its
// packages, compiling PGlite's WebAssembly and warming the JIT on the first store or Hush it starts. The
// store's files each spend well under a second on their tests, and most files on the simulator a few
// seconds, so that fixed price was a large share of the suite's CPU (twelve store files: 69 s of CPU in
// their own processes, 13 s in one). A group runs its files one after another, each as a top-level suite
// named by its file, so each file still starts and closes its own Hush and store, its hooks stay its own,
// and a failure names its file.
//
// What a group's files share, and why that is safe for those grouped: the process's module cache (a
// module's own state is made per Hush: stores, clocks, caches), the global `fetch` (a file that swaps it
// restores it in its `after`) and the registered secrets (api-responses.ts: a list that only grows). A file
// that needs its own process (process-level handlers, the whole process's determinism) is named in SOLO.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_DIR, bundleOf } from './bundle-tests.mjs';

/** Files that keep a process of their own. */
const SOLO = [
  // Installs process-level handlers for the connection it cuts.
  'test/store/postgres-connection-cuts.test.ts',
  // The simulator's own seeds: a run's event log is replayed to the byte within the process.
  'test/sim/sim-seeds.test.ts',
];
/** A file measured longer than this (durations.json, ms) amortizes its own process: it stays alone. */
const ALONE_MS = 60_000;
/** A group's files add up to at most this (durations.json, ms), so groups still spread over the pool. */
const GROUP_MS = 120_000;
/** A file not measured yet counts as this. */
const UNMEASURED_MS = 10_000;

/**
 * Splits `files` into those run alone and groups (each a list of files). Longest first, each file into the
 * first group with room (first-fit decreasing), so the groups come out of about even length.
 */
export function planGroups(files, durations) {
  const ms = (f) => durations[f] ?? UNMEASURED_MS;
  const alone = files.filter((f) => SOLO.includes(f) || ms(f) > ALONE_MS);
  const groups = [];
  for (const f of files.filter((x) => !alone.includes(x)).sort((a, b) => ms(b) - ms(a))) {
    const g = groups.find((x) => x.ms + ms(f) <= GROUP_MS);
    if (g) (g.files.push(f), (g.ms += ms(f)));
    else groups.push({ files: [f], ms: ms(f) });
  }
  return { alone, groups };
}

/**
 * Writes one entry per process of a lane, in the order given (each a list of files: a group, or one file
 * alone), named so they sort in that order: node --test runs its files sorted by path, whatever order they
 * were given in (so the lanes' longest-first order was lost before these entries). Returns their paths
 * (relative to `root`). With HUSH_TEST_CPU an entry also writes each file's share of its CPU (from its
 * suite's start to the next's), marked `part`.
 */
export function writeLaneEntries(root, lane, units) {
  const dir = join(root, BUNDLE_DIR, 'lanes');
  mkdirSync(dir, { recursive: true });
  return units.map((files, i) => {
    const path = join(dir, `${lane}-${String(i + 1).padStart(3, '0')}.test.mjs`);
    const entries = files.map((f) => [f, pathToFileURL(join(root, bundleOf(f))).href]);
    writeFileSync(
      path,
      `// ${files.length === 1 ? files[0] : `${files.length} test files in one process`} (test/runner/group-files.mjs).
import { appendFileSync } from 'node:fs';
import { AsyncResource } from 'node:async_hooks';
import { after, before, describe } from 'node:test';
const out = process.env.HUSH_TEST_CPU;
// Children the file started and reaped count too (cpu-per-file.mjs).
const { childCpuMs } = out ? await import(${JSON.stringify(pathToFileURL(join(root, 'test', 'runner', 'cpu-per-file.mjs')).href)}) : { childCpuMs: () => 0 };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 + childCpuMs(); };
let mark = null;
function next(file) {
  if (out && mark) appendFileSync(out, JSON.stringify({ file: mark.file, cpuMs: Math.round(cpu() - mark.at), part: true }) + '\\n');
  mark = file ? { file, at: cpu() } : null;
}
// One file's import at a time, each started inside its own suite (node:test gives a test or hook the suite in
// whose context its module was evaluated; imports side by side were all evaluated in the first one's), and
// each suite declared from the entry's own context (after an await, this module's code runs in the context
// of what it awaited: the next suite was declared inside the previous one).
// Support modules' cleanup for each file (test/support/after-test-file.ts), run after the file's own hooks.
const cleanups = new Set();
globalThis[Symbol.for('hush.test.fileCleanups')] = cleanups;
const scope = new AsyncResource('hush-test-entry');
for (const [file, bundle] of ${JSON.stringify(entries)}) {
  let loaded;
  scope.runInAsyncScope(() =>
    describe(file, () => {
      before(() => next(file));
      loaded = import(bundle).then(() => after(async () => {
        for (const fn of cleanups) await fn();
      }));
      return loaded;
    }),
  );
  await loaded.catch(() => {});
}
after(() => next(null));
`,
    );
    return relative(root, path);
  });
}
