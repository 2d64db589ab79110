/**
 * `npm run sim`: Hush in simulated time (docs/architecture.md, "Simulation").
 *
 *   npm run sim -- --seed 7                 one seed (its replay)
 *   npm run sim -- --seeds 200 --faults all the long search: seeds 1..200 (or from --seed)
 *   --hours H (default 1) --minutes M       simulated traffic
 *   --profile steady|cold-crowd|burst|daily|test-sends --faults none|rpc|crash|all|busy (busy: all, on a chain
 *   that congests like a busy mainnet hour and loses a tenth of all sends)
 *                                         (test-sends: two wallets each repeating its own amount on an idle Hush)
 *   --rate R (orders a second, default 1)   --keep 3,17,42 (a shrunk schedule)
 *   --mischief P (0..1, default 0.3 or the plant's: how often users send wrong amounts, retry, are sanctioned, send late)
 *   --no-shrink --verbose (every event line) --first-failure (stop at the first seed that fails)
 *   --processes api,api,worker,worker   (the default: the processes on the one store, each by its role; `all` runs one
 *                                         process doing both, as a single-machine deployment does)
 *   --plant <name>                        (a bug planted on purpose: a statement, sim/planted-bugs.ts, or Hush's source,
 *                                         sim/source-plants.ts; it brings its own --profile; an unknown name lists them)
 *
 * DATABASE_URL set: the store is PostgreSQL (a fresh schema per seed) instead of PGlite in memory.
 */
import { parseArgs } from 'node:util';
import { FAULT_SETS, type FaultSet } from './faults.ts';
import type { ProcessRole } from './world.ts';
import { runSeed, type RunOptions, type RunReport } from './run.ts';
import { PATHS, pathsNotRun } from './path-coverage.ts';
import { PLANTED_BUGS } from './planted-bugs.ts';
import { sourcePlanted } from './source-plant-hook.ts';
import { SOURCE_PLANTS } from './source-plants.ts';
import { shrink } from './shrink.ts';
import { keepClosedMemoryStores } from '../src/store/pglite-spares.ts';
import { PROFILES, describeSession, type Profile } from './traffic.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    hours: { type: 'string' },
    minutes: { type: 'string' },
    profile: { type: 'string' },
    faults: { type: 'string', default: 'all' },
    rate: { type: 'string', default: '1' },
    mischief: { type: 'string' },
    keep: { type: 'string' },
    'no-shrink': { type: 'boolean', default: false },
    'first-failure': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    plant: { type: 'string' },
    processes: { type: 'string' },
  },
});

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n`);
  process.exit(2);
}


const faults = values.faults as FaultSet;
if (!FAULT_SETS.includes(faults)) fail(`--faults must be one of ${FAULT_SETS.join(', ')}`);
const minutes = values.minutes !== undefined ? Number(values.minutes) : Number(values.hours ?? '1') * 60;
if (!(minutes > 0)) fail('--hours / --minutes must be positive');
const rate = Number(values.rate);
if (!(rate > 0)) fail('--rate must be positive');
const first = values.seed !== undefined ? Number(values.seed) : 1;
const count = values.seeds !== undefined ? Number(values.seeds) : 1;
if (!Number.isInteger(first) || !Number.isInteger(count) || count < 1) fail('--seed and --seeds take integers');
const keep = values.keep ? new Set(values.keep.split(',').map(Number)) : undefined;
const planted = values.plant === undefined ? undefined : PLANTED_BUGS[values.plant];
const sourcePlant = values.plant === undefined ? undefined : SOURCE_PLANTS[values.plant];
if (values.plant !== undefined && !planted && !sourcePlant) fail(`--plant must be one of ${[...Object.keys(PLANTED_BUGS), ...Object.keys(SOURCE_PLANTS)].join(', ')}`);
if (sourcePlant && sourcePlanted !== values.plant) fail(`--plant ${values.plant} rewrites Hush's source as it loads: run it as npm run sim does (node --import tsx --import ./sim/source-plant-hook.ts sim/cli.ts)`);
const processes = values.processes?.split(',') as ProcessRole[] | undefined;
if (processes && (processes.length === 0 || processes.some((r) => !['api', 'worker', 'all'].includes(r)))) fail('--processes takes roles api, worker or all, separated by commas');
if (processes && !processes.some((r) => r !== 'worker')) fail('--processes needs a process that answers partners (api or all)');
if (processes && !processes.some((r) => r !== 'api')) fail('--processes needs a process that settles (worker or all)');
const profile = (values.profile ?? planted?.profile ?? 'steady') as Profile;
// A plant brings the users it shows under (sim/planted-bugs.ts), unless told otherwise.
const mischief = values.mischief !== undefined ? Number(values.mischief) : (planted?.mischief ?? 0.3);
if (!(mischief >= 0 && mischief <= 1)) fail('--mischief must be between 0 and 1');
if (!PROFILES.includes(profile)) fail(`--profile must be one of ${PROFILES.join(', ')}`);

// Seeds run one after another: each next world's store is the last one's, emptied (the CLI ends with process.exit).
keepClosedMemoryStores(1);

const base: Omit<RunOptions, 'seed'> = { durationMs: minutes * 60_000, profile, faults, rate, mischief, keep, plant: planted?.rewrite, processes, databaseUrl: process.env.DATABASE_URL, echo: values.verbose ? (l) => process.stdout.write(`  ${l}\n`) : undefined };

function replay(seed: number, kept?: ReadonlySet<number>): string {
  const timing = values.minutes !== undefined ? `--minutes ${minutes}` : `--hours ${minutes / 60}`;
  return `npm run sim -- --seed ${seed} ${timing} --profile ${profile} --faults ${faults} --rate ${rate}${mischief !== 0.3 ? ` --mischief ${mischief}` : ''}${values.plant ? ` --plant ${values.plant}` : ''}${values.processes ? ` --processes ${values.processes}` : ''}${kept ? ` --keep ${[...kept].join(',')}` : ''}`;
}

function line(r: RunReport): string {
  const t = r.tallies;
  const pct = (k: number, n: number) => (n === 0 ? '-' : `${Math.round((100 * k) / n)} %`);
  return [
    `seed ${r.seed}: ${r.ok ? 'ok' : `FAILED (${r.failure!.invariant})`}`,
    `${r.orders} orders, ${(r.simulatedMs / 60_000).toFixed(0)} simulated min in ${(r.cpuMs / 1000).toFixed(1)} s CPU`,
    `${r.processes.join(', ')}: ${r.lives} lives, ${r.crashes.length} crashes, faults ${Object.entries(r.faults).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `checks ${t.checks} (reconciles ${t.reconciles}, flows screened ${t.screenedFlows}, receipts ${t.receipts.checked}, below the chain ${t.receipts.below}, books ${t.booked})`,
    `promises: set ${pct(t.promisedSets.kept, t.promisedSets.orders)} of ${t.promisedSets.orders}, wait ${pct(t.promisedWaits.kept, t.promisedWaits.orders)} of ${t.promisedWaits.orders}`,
    `${r.statements} statements, ${r.rpcCalls} RPC calls, log ${r.digest.slice(0, 16)}`,
    coverage(r.paths),
  ].join('\n  ');
}

/** The coverage line: how many of the paths ran, and which did not. */
function coverage(seen: ReadonlyMap<string, number>): string {
  const missing = pathsNotRun(seen);
  return `paths ${PATHS.length - missing.length} of ${PATHS.length}${missing.length ? `; not run: ${missing.join(', ')}` : ''}`;
}

let failed = 0;
const allPaths = new Map<string, number>();
let ran = 0;
const totals = { orders: 0, cpuMs: 0, sets: [0, 0], waits: [0, 0] };
for (let seed = first; seed < first + count; seed++) {
  const r = await runSeed({ ...base, seed });
  ran++;
  for (const [p, n] of r.paths) allPaths.set(p, (allPaths.get(p) ?? 0) + n);
  process.stdout.write(`${line(r)}\n`);
  totals.orders += r.orders;
  totals.cpuMs += r.cpuMs;
  totals.sets[0]! += r.tallies.promisedSets.kept;
  totals.sets[1]! += r.tallies.promisedSets.orders;
  totals.waits[0]! += r.tallies.promisedWaits.kept;
  totals.waits[1]! += r.tallies.promisedWaits.orders;
  if (r.ok) continue;
  failed++;
  process.stdout.write(`  ${r.failure!.message.split('\n').slice(0, 3).join('\n  ')}\n  last events:\n${r.failure!.tail.map((l) => `    ${l}`).join('\n')}\n  replay: ${replay(seed, keep)}\n`);
  if (!values['no-shrink']) {
    const shrunk = await shrink({ ...base, seed }, r, (m) => process.stdout.write(`  ${m}\n`));
    process.stdout.write(`  shrunk to ${shrunk.kept.length} of ${r.sessions.length} users:\n${shrunk.kept.map((s) => `    ${describeSession(s)}`).join('\n')}\n  replay: ${replay(seed, new Set(shrunk.kept.map((s) => s.id)))}\n`);
  }
  if (values['first-failure']) break;
}
const share = (k: number, n: number) => (n === 0 ? '-' : `${((100 * k) / n).toFixed(1)} %`);
process.stdout.write(
  `\n${ran} seed(s), ${failed} failed; ${totals.orders} orders in ${(totals.cpuMs / 1000).toFixed(1)} s CPU; quotes' promises kept: set ${share(totals.sets[0]!, totals.sets[1]!)} of ${totals.sets[1]}, wait ${share(totals.waits[0]!, totals.waits[1]!)} of ${totals.waits[1]} (the promise: at least 80 %)\n${coverage(allPaths)}\n`,
);
process.exit(failed > 0 ? 1 : 0);
