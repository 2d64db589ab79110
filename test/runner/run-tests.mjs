// npm test: every test file, from one pool of processes. The settlement and swap files (and a few others)
// spend most of their time waiting on real slots and child processes (a fifth to a third of a core each);
// the rest are CPU-bound (servers starting, stores, requests) or close to it. On two cores the waiting files
// run three at a time beside two CPU-bound processes, and the CPU-bound ones take the waiting files' places
// once those are done (runPool). The longest start first (test/runner/durations.json, measured by `npm run
// test:durations`; a file not listed there runs after the listed ones). Each process's TAP output is printed
// whole when it ends (CI logs stay readable); the failures and the ten slowest files are printed at the end.
// The type check (tsc --noEmit) runs beside the pool, and fails the run like a test.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_DIR, bundleOf, bundleTests, sourceOf } from './bundle-tests.mjs';
import { planGroups, writeLaneEntries } from './group-files.mjs';
import { propertySeed } from './property-seed.mjs';
import { summary } from './slowest-files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const testDir = join(root, 'test');
/**
 * Files that spend most of their time waiting on wall-clock slots, blockhash lives or child processes (a third
 * of a core or less each, measured with process.cpuUsage per file: `npm run test:cpu`): run three
 * at a time beside the CPU-bound ones (runPool). Files on the simulator (test/support/sim-hush.ts) never wait on the wall
 * clock: they are CPU-bound.
 */
const WAITING = [
  'test/settlement/class-release-crash.test.ts', 'test/settlement/crash-safety.test.ts', 'test/settlement/funding-crash.test.ts',
  'test/settlement/operator-faults.test.ts', 'test/settlement/subscriptions.test.ts', 'test/settlement/unfunded-orders-idle.test.ts',
  'test/sdk/cli-process.test.ts', 'test/sdk/sdk-package.test.ts', 'test/docs/readme-partner-example.test.ts', 'test/docs/readme-example-outside.test.ts', 'test/docs/demo.test.ts',
  'test/console/', 'test/admin/admin-cli.test.ts', 'test/api/rpc-timeout.test.ts', 'test/api/blockhash-life.test.ts', 'test/chain/flaky-start.test.ts',
];

const files = readdirSync(testDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(testDir, d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
  .sort()
  // HUSH_TEST_FILES=test/store/,test/sim/sim-hush: only the files under these prefixes (a quick look at the runner).
  .filter((f) => !process.env.HUSH_TEST_FILES || process.env.HUSH_TEST_FILES.split(',').some((p) => f.startsWith(p)));
let durations = {};
try {
  durations = JSON.parse(readFileSync(join(testDir, 'runner', 'durations.json'), 'utf8'));
} catch {
  // No measurements: alphabetical order.
}
const longestFirst = (list) => [...list].sort((a, b) => (durations[b] ?? 0) - (durations[a] ?? 0));
const waiting = longestFirst(files.filter((f) => WAITING.some((p) => f.startsWith(p))));
const cpu = longestFirst(files.filter((f) => !WAITING.some((p) => f.startsWith(p))));

// Each file runs as its bundle (bundle-tests.mjs); HUSH_TEST_TSX=1 runs the .ts files through tsx instead.
const viaTsx = process.env.HUSH_TEST_TSX === '1';
if (!viaTsx) process.stdout.write(`# bundled ${files.length} test files in ${(await bundleTests(root, files)).toFixed(1)} s\n`);
// The processes of each kind in order, longest first (group-files.mjs): the short CPU-bound files share
// processes, a group's files one after another; HUSH_TEST_GROUPS=0 runs each file alone.
let laneEntries = { waiting, cpu };
if (!viaTsx) {
  const units = process.env.HUSH_TEST_GROUPS === '0' ? { alone: cpu, groups: [] } : planGroups(cpu, durations);
  const cpuUnits = [...units.alone.map((f) => ({ files: [f], ms: durations[f] ?? 0 })), ...units.groups].sort((a, b) => b.ms - a.ms);
  laneEntries = { waiting: writeLaneEntries(root, 'waiting', waiting.map((f) => [f])), cpu: writeLaneEntries(root, 'cpu', cpuUnits.map((u) => u.files)) };
  process.stdout.write(`# CPU-bound files: ${units.alone.length} files alone, ${cpu.length - units.alone.length} in ${units.groups.length} groups (HUSH_TEST_GROUPS=0: each alone)\n`);
}

/**
 * The tests' temporary files (every store in a directory, the PGlite templates, the children's DATA_DIRs) go
 * to memory when the machine has room there: a test proves nothing about the disk, and on this machine's disk
 * a store's writes and fsyncs cost CPU (copying a store's template: 0.39 s of system time to /tmp against 0.08
 * s to /dev/shm) and the shared disk's contention stalls every file beside it. Kept across runs (the templates
 * are made once); 4 GB free or the system's temporary directory as before.
 */
function memoryTmpdir() {
  const dir = '/dev/shm/hush-tests';
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize < 4 * 1024 ** 3) return undefined;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // What a killed run left (memory, not disk): anything a day old but the templates. Another run beside
    // this one (a second checkout) keeps its own, younger files.
    const dayAgo = Date.now() - 24 * 3600_000;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!name.startsWith('hush-pglite-template-') && statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
    }
    return dir;
  } catch {
    return undefined;
  }
}
const tmpdirEnv = process.env.HUSH_TEST_TMPDIR === 'system' ? {} : ((d) => (d ? { TMPDIR: d } : {}))(memoryTmpdir());
if (tmpdirEnv.TMPDIR) process.stdout.write(`# temporary files in ${tmpdirEnv.TMPDIR} (HUSH_TEST_TMPDIR=system: the system's)\n`);

/**
 * One `node --test` process per entry (a file alone, or a group), from one pool: the waiting files take up to
 * three places, the CPU-bound ones two, and once no waiting file is left to start, the CPU-bound ones take up
 * to four. Two fixed lanes left a core idle: the waiting lane ended at 384 s, the CPU lane at 797 s, its
 * two processes spending half their time on slots and sockets (1,246 s of CPU in 797 s: 78 % of two cores).
 * Each process's TAP output is printed whole when it ends (CI logs stay readable); its failures and files'
 * times come back as JSON (slowest-files.mjs) and are printed for the whole run at the end.
 */
const WAITING_PLACES = 3;
const CPU_PLACES = 2;
const CPU_PLACES_ALONE = 4;
const reportDir = join(root, BUNDLE_DIR, 'reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

function runEntry(entry, n) {
  const report = join(reportDir, `${n}.json`);
  const args = [
    // PGlite's PostgreSQL is WebAssembly: V8 compiles its hot functions again with TurboFan, in background
    // threads, which a test process (seconds to a minute of small statements) seldom earns back; the node:test
    // children and the processes tests start (cli-command.ts) run on Liftoff alone (orders-store: 5.9 → 3.5 s
    // of CPU; sim-seeds 42.5 → 39.7 s).
    '--liftoff-only',
    ...(viaTsx ? ['--import', 'tsx'] : ['--enable-source-maps']),
    // node:test's test context without its destroy hook on every promise (test-context.mjs): first, before
    // anything loads node:test.
    '--import', './test/runner/test-context.mjs', '--import', './test/runner/property-seed.mjs',
    ...(process.env.HUSH_TEST_CPU ? ['--import', './test/runner/cpu-per-file.mjs'] : []),
    // A process whose test waits on something that never comes fails after fifteen minutes, with the tests it had
    // passed, instead of holding the run forever (node's --test applies it to each entry as a whole): a group is
    // planned at up to 120 s (group-files.mjs), and this host has run twice as slow on its slow hours, with a CPU
    // burner beside it on top.
    '--test', '--test-concurrency=1', '--test-timeout=900000',
    '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./test/runner/slowest-files.mjs', '--test-reporter-destination=stderr',
    ...process.argv.slice(2),
    // Absolute: from Node 22 on, --test takes its arguments as globs, which never match under node_modules/.
    resolve(root, entry),
  ];
  return new Promise((resolve) => {
    // The CLI entries' bundles, for the children tests start (test/support/cli-command.ts).
    const cliBundles = viaTsx ? {} : { HUSH_TEST_CLI_BUNDLES: join(root, BUNDLE_DIR) };
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HUSH_TEST_REPORT: report, ...cliBundles, ...tmpdirEnv } });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('close', (code, signal) => {
      let result = { files: {}, failures: [] };
      try {
        result = JSON.parse(readFileSync(report, 'utf8'));
      } catch {
        // The process died before its reporter wrote (killed, or it crashed): its output says why.
        result.failures.push(`# FAILED ${entry}: the test process ended (${signal ?? `exit ${code}`}) without its report\n${Buffer.concat(err).toString().slice(-1500).replace(/^/gm, '#     ')}`);
      }
      resolve({ entry, code: code ?? 1, out: Buffer.concat(out), ...result });
    });
  });
}

async function runPool(queues) {
  const results = [];
  const running = { waiting: 0, cpu: 0 };
  let n = 0;
  await new Promise((done) => {
    const next = () => {
      for (;;) {
        const waitingLeft = queues.waiting.length > 0;
        let kind = null;
        if (waitingLeft && running.waiting < WAITING_PLACES) kind = 'waiting';
        // Once no waiting file is left to start, each place a waiting file frees goes to CPU-bound work.
        else if (queues.cpu.length > 0 && running.cpu < (waitingLeft ? CPU_PLACES : Math.min(CPU_PLACES_ALONE, CPU_PLACES + WAITING_PLACES - running.waiting))) kind = 'cpu';
        if (!kind) break;
        const entry = queues[kind].shift();
        running[kind]++;
        runEntry(entry, ++n).then((r) => {
          running[kind]--;
          process.stdout.write(r.out);
          results.push(r);
          if (running.waiting + running.cpu === 0 && queues.waiting.length + queues.cpu.length === 0) done();
          else next();
        });
      }
      if (running.waiting + running.cpu === 0) done();
    };
    next();
  });
  return results;
}

/** A command run beside the pool, its output kept for the end: resolves to its exit code, output and seconds. */
function runCommand(args, env) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('close', (code, signal) => resolve({ code: code ?? 1, signal, out: Buffer.concat(out).toString(), seconds: (Date.now() - t0) / 1000 }));
  });
}

/**
 * The type check of the whole repository (`tsc --noEmit`, about 31 s of one core), run beside the test
 * processes rather than before them (npm test ran it first: half a minute with the second core idle). A
 * failure fails the run and its output is printed at the end with the tests' failures. Not run for a subset
 * (HUSH_TEST_FILES) unless HUSH_TEST_TSC=1, nor with HUSH_TEST_TSC=0.
 */
const tsc = process.env.HUSH_TEST_TSC === '1' || (!process.env.HUSH_TEST_FILES && process.env.HUSH_TEST_TSC !== '0');
const typecheck = !tsc ? null : runCommand([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit'], process.env);

/**
 * The PGlite template every new store starts from (store-template.ts), made once here before the pool when
 * the tests' temporary directory has none: otherwise each process opening a store meanwhile makes its own.
 */
{
  const entry = viaTsx ? ['--import', 'tsx', 'test/runner/store-template.ts'] : ['--liftoff-only', '--enable-source-maps', bundleOf('test/runner/store-template.ts')];
  // And a copy where children without the tests' TMPDIR look (the system's temporary directory).
  if (tmpdirEnv.TMPDIR) entry.push(tmpdir());
  const t = await runCommand(entry, { ...process.env, ...tmpdirEnv });
  process.stdout.write(`# the stores' template ready in ${t.seconds.toFixed(1)} s${t.code === 0 ? '' : ` (failed, exit ${t.signal ?? t.code}: each store makes its own)\n${t.out.replace(/^/gm, '#   ')}`}\n`);
}

// Every property draws from this seed (property-seed.mjs): the same run after run, printed so a failure replays.
process.stdout.write(`# property seed ${propertySeed()} (replay: HUSH_PROPERTY_SEED=${propertySeed()} npm test; many seeds: npm run test:properties)\n`);
if (process.env.HUSH_TEST_CPU) writeFileSync(process.env.HUSH_TEST_CPU, '');
const started = Date.now();
const results = await runPool({ waiting: [...laneEntries.waiting], cpu: [...laneEntries.cpu] });
const seconds = ((Date.now() - started) / 1000).toFixed(0);
const fileTimes = Object.assign({}, ...results.map((r) => r.files));
const failures = results.flatMap((r) => r.failures);
if (typecheck) {
  const tc = await typecheck;
  if (tc.code === 0) process.stdout.write(`# tsc --noEmit: no errors (${tc.seconds.toFixed(0)} s, beside the tests)\n`);
  else failures.push(`# FAILED tsc --noEmit (exit ${tc.signal ?? tc.code}):\n${tc.out.trimEnd().replace(/^/gm, '#     ')}`);
}
const failedEntries = results.filter((r) => r.code !== 0 && r.failures.length === 0).map((r) => `# FAILED ${r.entry}: exit ${r.code}`);
process.stdout.write(summary(Object.entries(fileTimes).sort((a, b) => b[1] - a[1]), [...failures, ...failedEntries]));
const count = (k) => results.reduce((a, r) => a + (r.counts?.[k] ?? 0), 0);
process.stdout.write(`# ${count('tests')} tests: ${count('tests') - count('failed') - count('skipped')} passed, ${count('failed')} failed, ${count('skipped')} skipped\n`);
process.stdout.write(`# ${results.length} test processes (${waiting.length} waiting files, ${cpu.length} CPU-bound files) in ${seconds} s\n`);
const out = process.env.HUSH_TEST_DURATIONS;
if (out) {
  const measured = Object.entries(fileTimes).filter(([f]) => f.endsWith('.test.ts')).sort((a, b) => b[1] - a[1]);
  writeFileSync(out, `${JSON.stringify(Object.fromEntries(measured), null, 1)}\n`);
}
const cpuOut = process.env.HUSH_TEST_CPU;
if (cpuOut) {
  // Each file's process wrote one line (cpu-per-file.mjs); a file that was killed wrote none.
  // A group's process wrote its whole CPU, and each of its files its share (`part`): the total counts
  // processes, the rows files.
  const perFile = new Map();
  let total = 0;
  for (const l of readFileSync(cpuOut, 'utf8').split('\n').filter(Boolean)) {
    const { file, cpuMs, part } = JSON.parse(l);
    if (!part) total += cpuMs;
    if (part || !file.includes('/lanes/')) perFile.set(sourceOf(file), Math.max(perFile.get(sourceOf(file)) ?? 0, cpuMs));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const shares = rows.reduce((a, [, ms]) => a + ms, 0);
  process.stdout.write(`# CPU of the test processes: ${(total / 1000).toFixed(0)} s (not counting the processes they start); ${rows.length} files' own shares ${(shares / 1000).toFixed(0)} s, the rest each group's start; the ten costliest:\n${rows.slice(0, 10).map(([f, ms]) => `#   ${(ms / 1000).toFixed(1).padStart(6)}  ${f}`).join('\n')}\n`);
}
process.exit(results.some((r) => r.code !== 0) || failures.length > 0 ? 1 : 0);
