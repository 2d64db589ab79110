// npm test: every test file, in two lanes run side by side. The settlement and swap files (and a few others)
// spend most of their time waiting on real slots (a fifth to a third of a core each); the rest are CPU-bound
// (servers starting, stores migrating, requests). On two cores, one runner three files at a time left the CPU
// idle whenever three waiting files ran together; a lane of waiting files three at a time beside a lane of
// CPU-bound files two at a time keeps the waits beside CPU work. Within a lane the
// longest files start first (test/runner/durations.json, measured by `npm run test:durations`; a file not
// listed there runs after the listed ones). Each lane's TAP output is printed whole when the lane ends (CI
// logs stay readable); the ten slowest files, and each lane's result, are printed at the end.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOf, bundleTests } from './bundle-tests.mjs';
import { propertySeed } from './property-seed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const testDir = join(root, 'test');
/**
 * Files that spend most of their time waiting on slots, blockhash lives or child processes (a third of a
 * core or less each, measured with process.cpuUsage per file): run three at a time beside the CPU lane.
 */
const WAITING = [
  'test/settlement/', 'test/swaps/', 'test/sdk/', 'test/docs/', 'test/console/', 'test/admin/admin-cli.test.ts', 'test/api/rpc-timeout.test.ts',
  'test/api/chain-budget-lanes.test.ts', 'test/api/blockhash-life.test.ts', 'test/chain/flaky-start.test.ts',
];

const files = readdirSync(testDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(testDir, d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
  .sort();
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

function lane(name, list, concurrency) {
  const args = [
    ...(viaTsx ? ['--import', 'tsx'] : ['--enable-source-maps']), '--import', './test/runner/property-seed.mjs',
    ...(process.env.HUSH_TEST_CPU ? ['--import', './test/runner/cpu-per-file.mjs'] : []),
    '--test', `--test-concurrency=${concurrency}`,
    '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./test/runner/slowest-files.mjs', '--test-reporter-destination=stderr',
    ...process.argv.slice(2),
    ...(viaTsx ? list : list.map(bundleOf)),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HUSH_TEST_LANE: name } });
    const out = [];
    const summary = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => summary.push(c));
    const t0 = Date.now();
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), out: Buffer.concat(out), summary: Buffer.concat(summary).toString(), seconds: Math.round((Date.now() - t0) / 1000) }));
  });
}

// Every property draws from this seed (property-seed.mjs): the same run after run, printed so a failure replays.
process.stdout.write(`# property seed ${propertySeed()} (replay: HUSH_PROPERTY_SEED=${propertySeed()} npm test; many seeds: npm run test:properties)\n`);
const started = Date.now();
const lanes = await Promise.all([lane('waiting', waiting, 3), lane('cpu', cpu, 2)]);
for (const l of lanes) {
  process.stdout.write(`# ---- lane ${l.name} (${l.name === 'waiting' ? waiting.length : cpu.length} files) ----\n`);
  process.stdout.write(l.out);
}
for (const l of lanes) process.stdout.write(`# ---- lane ${l.name}: exit ${l.code} after ${l.seconds} s\n${l.summary}`);
process.stdout.write(`# both lanes in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
const out = process.env.HUSH_TEST_DURATIONS;
if (out) {
  const merged = Object.assign({}, ...lanes.map((l) => JSON.parse(readFileSync(`${out}.${l.name}`, 'utf8'))));
  writeFileSync(out, `${JSON.stringify(Object.fromEntries(Object.entries(merged).sort((a, b) => b[1] - a[1])), null, 1)}\n`);
  for (const l of lanes) rmSync(`${out}.${l.name}`, { force: true });
}
process.exit(lanes.some((l) => l.code !== 0) ? 1 : 0);
