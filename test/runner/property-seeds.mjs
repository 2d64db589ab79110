// npm run test:properties: the property files (every test file that imports fast-check) run again and
// again, each time from a fresh random seed, for as many seeds or minutes as asked. npm test draws from
// one fixed seed (property-seed.mjs), which keeps CI repeatable but explores the same cases every run;
// this is where new counterexamples are found. Each failing seed is printed with the failing tests' output
// and its replay command; keep the counterexample as a fixed case in that property's `examples`.
//
//   npm run test:properties -- [--seeds N] [--minutes M] [--files a,b] [--concurrency C]
//   --seeds N      seeds to try (default 50)
//   --minutes M    stop starting new seeds after M minutes
//   --files a,b    only the property files whose path contains one of these
//   --concurrency  files run at once for one seed (default 2, the machine's cores)
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleOf, bundleTests, sourceOf } from './bundle-tests.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '50' }, minutes: { type: 'string' }, files: { type: 'string' }, concurrency: { type: 'string', default: '2' } },
});
const seeds = Number(values.seeds);
const until = values.minutes === undefined ? Infinity : Date.now() + Number(values.minutes) * 60_000;
const only = values.files?.split(',').filter(Boolean);

const files = readdirSync(join(root, 'test'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(root, 'test', d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
  .filter((f) => /from 'fast-check'/.test(readFileSync(join(root, f), 'utf8')))
  .filter((f) => !only || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  process.stderr.write('no property files matched\n');
  process.exit(2);
}
process.stdout.write(`# ${files.length} property files, bundled in ${(await bundleTests(root, files)).toFixed(1)} s\n`);

/** One run of every file from `seed`: whether it passed, and the TAP of whatever failed. */
function runSeed(seed) {
  const args = ['--enable-source-maps', '--import', './test/runner/property-seed.mjs', '--test', `--test-concurrency=${values.concurrency}`, '--test-reporter=tap', ...files.map(bundleOf)];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HUSH_PROPERTY_SEED: String(seed) } });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('close', (code) => resolve({ ok: code === 0, tap: Buffer.concat(out).toString() }));
  });
}

/** The failing subtests' blocks of a TAP stream, with bundle paths named by their sources. */
function failures(tap) {
  const lines = tap.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*not ok /.test(lines[i])) continue;
    const indent = lines[i].search(/\S/);
    const block = [lines[i]];
    for (let j = i + 1; j < lines.length && (lines[j].search(/\S/) > indent || lines[j].trim() === ''); j++) block.push(lines[j]);
    blocks.push(block.join('\n').replaceAll(/\S*node_modules\/\.cache\/hush-tests\/\S+\.mjs/g, (p) => sourceOf(p)));
  }
  return blocks.length ? blocks.join('\n') : tap.slice(-4000);
}

const failed = [];
const started = Date.now();
let tried = 0;
for (; tried < seeds && Date.now() < until; tried++) {
  const seed = randomInt(-(2 ** 31), 2 ** 31);
  const t0 = Date.now();
  const r = await runSeed(seed);
  process.stdout.write(`# seed ${seed}: ${r.ok ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  if (!r.ok) {
    failed.push(seed);
    process.stdout.write(`${failures(r.tap)}\n# replay: HUSH_PROPERTY_SEED=${seed} node --import ./test/runner/property-seed.mjs --import tsx --test <file>\n`);
  }
}
process.stdout.write(`# ${tried} seeds over ${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s: ${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}\n`);
process.exit(failed.length ? 1 : 0);
