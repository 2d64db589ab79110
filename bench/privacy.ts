/**
 * bench:privacy — how many of Hush's orders an outsider links, and the delay that buys the rest.
 *
 *   npm run bench:privacy                 free, standard (exact_out, exact_in) and swap rows at λ ∈ {0.05, 0.2, 1}/s,
 *                                         the partner's choices (every order minAnonymitySet 20 at λ = 0.05; a third
 *                                         minAnonymitySet 30 at λ = 0.2, each in a Hush of its own), a cold start, and
 *                                         issue 51's shapes (cold-crowd, burst-silence, daily-cycle) and issue 71's cold-crowd-partners, each a Hush of its own
 *   npm run bench:privacy -- --full       also λ = 5, round amounts and bursts (each in a Hush of its own), the patient row at the operator's ceiling
 *   … -- --rates=1 --rows=std-out,swap    a subset
 *   … -- --target=28 --budget=840 --window=5-30 --menu=1-2-5 --ceiling=3600
 *                                         the release policy for this run (default: Hush's configuration);
 *                                         --k=16 a fixed k instead of the target
 *   … -- --offered=1                      the partner offers only standard amounts 1, 10, 100 … (fewer classes)
 *   … -- --n=400                          at most this many orders per row (default 1500, 2500 with --full)
 *   … -- --compression=4                  every rate run compressed this many times (1, 2, 4, 8 or 16) instead of
 *                                         compressionFor's choice: a subset of rows (--rows=std-out) otherwise runs
 *                                         more compressed than the same rows in the default run
 *   … -- --sign-delay=30                  each user takes 15–45 s (real) to sign and send the deposit once the order is
 *                                         placed (default: at once, as a script would)
 *   … -- --rows=grid                      only the fee grid phase (issue 73, a few minutes: grid-phase.ts), which the
 *                                         default run ends with: the market turns busy and calm, the quotes' networkFee
 *                                         steps among the orders, and the releases it would split are counted
 *   … -- --write-docs                     also rewrite the table and chart in docs/privacy.md
 *   … -- --parallel=2                     runs at once (default 3; never two heavy ones, see HEAVY_ORDERS_PER_S), each
 *                                         in a Hush and chain of its own with a random stream of its own (seeded
 *                                         from --seed and its place in the list)
 *
 * The policy (HUSH_PRIVACY, HUSH_DENOMINATIONS, HUSH_PRIVACY_TARGET_SET or HUSH_PRIVACY_K,
 * HUSH_PRIVACY_MAX_DELAY_S, HUSH_PAYOUT_DELAY_S) is read from
 * Hush's configuration of this environment, the flags overriding it; the adversary is handed it as Hush
 * publishes it. Time is compressed (see compressionFor). Ends with the issue's targets as PASS/MISS lines;
 * fails (exit 1) when a self-check fails.
 */
import { loadConfig } from '../src/config/config.ts';
import { runOnce, type BenchPolicy, type Horizon, type RunResult } from './privacy/run.ts';
import { policyLine, printColdStart, printTable, printTargets, selfChecks, writeDocs, type RateResult } from './privacy/report.ts';
import { shapedTargets } from './privacy/shaped-report.ts';
import { horizonFor as horizonForPolicy } from './privacy/horizon.ts';
import { runQueue, type QueuedJob } from './support/run-queue.ts';
import { seeded } from '../src/support/seeded-random.ts';
import { denominationsOf, shapedWorkloads, workloads, type Workload } from './privacy/workloads.ts';
import { gridPhase, printGridPhase } from './privacy/grid-phase.ts';

const args = new Map<string, string | undefined>(process.argv.slice(2).map((a) => { const [k, v] = a.replace(/^--/, '').split('='); return [k!, v]; }));
const KNOWN = ['full', 'rates', 'rows', 'menu', 'target', 'k', 'budget', 'window', 'ceiling', 'offered', 'n', 'seed', 'write-docs', 'parallel', 'compression', 'sign-delay'];
const unknown = [...args.keys()].filter((k) => !KNOWN.includes(k));
if (unknown.length > 0) {
  // A mistyped or retired flag (--cap) would otherwise measure the default policy under another name.
  process.stderr.write(`bench:privacy: unknown flag(s) ${unknown.map((k) => `--${k}`).join(', ')}; known: ${KNOWN.map((k) => `--${k}`).join(' ')}\n`);
  process.exit(2);
}
const full = args.has('full');
const rates = (args.get('rates') ?? (full ? '0.05,0.2,1,5' : '0.05,0.2,1')).split(',').map(Number);
// The flags go through Hush's own validation, so a run never measures a policy Hush would refuse.
const flagged: Record<string, string | undefined> = {
  HUSH_DENOMINATIONS: args.get('menu'),
  HUSH_PRIVACY_TARGET_SET: args.get('target'),
  HUSH_PRIVACY_K: args.get('k'),
  HUSH_PRIVACY_MAX_DELAY_S: args.get('budget'),
  HUSH_PAYOUT_DELAY_S: args.get('window'),
};
const config = loadConfig({ ...process.env, ...Object.fromEntries(Object.entries(flagged).filter(([, v]) => v !== undefined)) });
const policy: BenchPolicy = {
  menu: config.denominationMenu,
  targetSet: config.privacyTargetSet,
  ...(config.privacyK !== undefined ? { k: config.privacyK } : {}),
  budgetS: config.privacyMaxDelayS,
  windowS: config.payoutDelayS,
  trafficWindowS: config.privacyTrafficWindowS,
  // The operator's default ceiling is 6 h. The default run waits at most an hour (real) for the rows that ask
  // to wait: at ×16 the patient row at 6 h alone takes about 50 minutes against the run's 20. --full takes
  // the operator's ceiling; what a set of 20 can reach depends on it (docs/privacy.md).
  ceilingS: Number(args.get('ceiling') ?? (full ? config.privacyMaxWaitS : Math.min(config.privacyMaxWaitS, 3600))),
};
const maxOrders = Number(args.get('n') ?? (full ? 2500 : 1500));
const signDelayS = Number(args.get('sign-delay') ?? 0);
if (!(signDelayS >= 0)) {
  process.stderr.write('bench:privacy: --sign-delay is real seconds, 0 or more\n');
  process.exit(2);
}
const forcedCompression = args.get('compression') === undefined ? undefined : Number(args.get('compression'));
if (forcedCompression !== undefined && ![1, 2, 4, 8, 16].includes(forcedCompression)) {
  process.stderr.write('bench:privacy: --compression is 1, 2, 4, 8 or 16\n');
  process.exit(2);
}
const assets = new Map(config.assets.list.map((a) => [a.assetId, a]));
/**
 * --offered=1 (or 1,5 …): the partner offers its users only the standard amounts with these leading
 * digits (1: 1, 10, 100 …), so the standard and swap rows spread over fewer classes. Hush is unchanged.
 */
const offered = args.get('offered')?.split(',');
const table = {
  get: (id: string) => assets.get(id)!,
  denominations: (id: string) => denominationsOf(assets.get(id)!).filter((d) => !offered || offered.includes(String(d)[0]!)),
};
const onlyRows = args.get('rows')?.split(',');
/** Rows in a Hush of their own that the default run includes: the partner's choices (issue 41). */
const DEFAULT_GROUPS = ['patient', 'mixed'];
const chosen = workloads(table).filter((w) => (onlyRows ? onlyRows.includes(w.id) : full || !w.group || DEFAULT_GROUPS.includes(w.group)));
/** Issue 51's shaped rows: in the default run, or those --rows names. */
const shaped = shapedWorkloads(table).filter((w) => (onlyRows ? onlyRows.includes(w.id) : true));
/** Their compression: ×4 for the minute of the crowd (its 8 orders a second), ×16 for the hours of the others. */
const SHAPED_COMPRESSION: Record<string, number> = { 'cold-crowd': 4, 'cold-crowd-partners': 4, 'burst-silence': 16, 'daily-cycle': 16 };
/** The crowds' rate, real orders a second. */
const CROWDS = ['cold-crowd', 'cold-crowd-partners'];
const seed = Number(args.get('seed') ?? 20261122);
const log = (m: string) => process.stderr.write(`${m}\n`);
/** The fee grid phase: by default after every other run (it is CPU-bound, and must not slow their compressed time). */
const gridWanted = !onlyRows || onlyRows.includes('grid');
if (onlyRows?.length === 1 && gridWanted) {
  const grid = await gridPhase({ seed, log });
  for (const l of printGridPhase(grid)) console.log(l);
  process.exit(grid.splitByAmount > 0 || grid.steps.length === 0 ? 1 : 0);
}

/** The run's span in real seconds (horizon.ts): warm-up, scored span, padding. */
const horizonFor = (rate: number, patient = false): Horizon => horizonForPolicy(rate, policy, maxOrders, patient);

/**
 * Compression c: slot 400/c ms, every delay of the policy and the arrival gaps ÷ c, so arrivals per slot,
 * per window and per cap are those of the real rate. A power of two between 1 and 16, the smallest that
 * brings a run's arrivals under about 90 s, but never more than ~16 orders a second into Hush altogether
 * (two shared cores: beyond that Hush's own latency, which does not scale, would swamp the window).
 */
function compressionFor(rate: number, streams: number, patient = false): number {
  if (forcedCompression !== undefined) return forcedCompression;
  const { warmup, scored, padding } = horizonFor(rate, patient);
  let c = 1;
  while (c < 16 && (warmup + scored + padding) / c > 90 && rate * streams * c * 2 <= 16) c *= 2;
  return c;
}

const groups = new Map<string, Workload[]>();
for (const w of chosen) groups.set(w.group ?? '', [...(groups.get(w.group ?? '') ?? []), w]);
const t0 = Date.now();
log(`policy: ${policyLine(policy)}${offered ? `; partner offers standard amounts ${offered.join(',')}×10^n only` : ''}`);
// The runs wait on compressed real time far more than they compute (one uses under a core): a few at once
// fit the 20 minutes a default run may take. Each has its own Hush, chain and random stream, so none
// depends on another or on which finishes first.
const parallel = Number(args.get('parallel') ?? 3);
if (!Number.isInteger(parallel) || parallel < 1 || parallel > 8) {
  process.stderr.write('bench:privacy: --parallel is a whole number of runs at once, 1 to 8\n');
  process.exit(2);
}
/**
 * A run putting this many orders a second into its Hush or more (rate × streams × compression: λ = 1 ×4 is
 * 16, λ = 0.2 ×16 is 12.8) is heavy, and only one heavy run goes at a time: beside each other, on two cores,
 * the λ = 0.2 run's senders lost 13 deposits to blockhashes that died before they signed (a blockhash lives
 * 3.75 s at ×16) and its delays stretched past the target (2026-11-25, three runs at once). The light runs
 * (the patient, mixed and λ = 0.05 rows, the shaped rows, the self-check and the cold start) share the other places.
 */
const HEAVY_ORDERS_PER_S = 8;
const rateRuns: { rate: number; patient: boolean; active: Workload[] }[] = [];
for (const rate of rates) {
  for (const ws of groups.values()) {
    const active = ws.filter((w) => !w.rates || w.rates.includes(rate));
    if (active.length > 0) rateRuns.push({ rate, patient: active.some((w) => w.choice), active });
  }
}
const jobs = rateRuns.map(({ rate, patient, active }, i) => ({ i, rate, patient, active, compression: compressionFor(rate, active.length, patient) }));
const isHeavy = (j: (typeof jobs)[number]) => j.rate * j.active.length * j.compression >= HEAVY_ORDERS_PER_S;
// The rate runs: the heavy ones, then the patient rows (their holds run to the ceiling), then the rest by rate;
// the queue's order is the ranks below. With p-limit a heavy run waiting for its turn held one of the three
// places idle for the λ = 1 run's 13 minutes, and the default run took 21 minutes (run-queue.ts lets the light
// runs take it). Each run scores on a thread of its own (score-rows.ts): scored on this thread, λ = 1's 154 s
// of matching stalled the run beside it (2026-11-25: 42 of the patient run's 238 orders failed, "fetch failed").
const order = (a: (typeof jobs)[number], b: (typeof jobs)[number]) =>
  Number(isHeavy(b)) - Number(isHeavy(a)) || Number(b.patient) - Number(a.patient) || b.rate - a.rate || a.i - b.i;
const at = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
const sortedJobs = [...jobs].sort(order);
const rateJobs: QueuedJob<RateResult & { i: number }>[] = sortedJobs.map((j) => ({
  ...(isHeavy(j) ? { exclusive: 'heavy' } : {}),
  run: async (leave) => {
    const horizonS = horizonFor(j.rate, j.patient);
    const tag = `[λ=${j.rate}${j.patient ? `, ${j.active.map((w) => w.id).join('+')}` : ''}]`;
    log(`${tag} start at ${at()}${isHeavy(j) ? ' (heavy)' : ''}`);
    // Once its chain is done the run leaves its place (and the heavy turn) to the next: λ = 1 scores for minutes.
    const chainDone = () => (log(`${tag} chain done at ${at()}`), leave());
    const run = await runOnce({ rate: j.rate, compression: j.compression, ordersPerRow: maxOrders, horizonS, chainDone, policy, signDelayS, workloads: j.active, assets, random: seeded(seed + j.i), log: (m) => log(`${tag} ${m.trimStart()}`) });
    log(`${tag} done in ${run.wallSeconds.toFixed(0)} s (at ${at()}): ${run.failedOrders} failed, ${run.unswept} unswept, ${run.rpcRequests} adversary RPC requests`);
    return { i: j.i, rate: j.rate, compression: j.compression, horizonS, run };
  },
}));

// Issue 51's shapes, each a fresh Hush of its own: the cold crowd's Hush has seen nothing before it, the others
// warm themselves (their shape starts with traffic that is not scored).
// The cold crowd (2 orders a second at ×4) is a heavy run too: beside λ = 0.2's run and λ = 1's scoring it
// linked 12.1 % (2026-11-26), against 4.7–7.5 % in runs of its own.
const shapedJobs: QueuedJob<RateResult>[] = shaped.map((w, k) => ({
  ...(CROWDS.includes(w.id) ? { exclusive: 'heavy' } : {}),
  run: async (leave) => {
    const compression = SHAPED_COMPRESSION[w.id] ?? 16;
    log(`[${w.id}] start at ${at()} (×${compression})`);
    const run = await runOnce({ rate: CROWDS.includes(w.id) ? 2 : 0.2, compression, ordersPerRow: 100_000, chainDone: leave, policy, workloads: [w], assets, random: seeded(seed + 2000 + k), log: (m) => log(`[${w.id}] ${m.trimStart()}`) });
    log(`[${w.id}] done in ${run.wallSeconds.toFixed(0)} s (at ${at()}): ${run.failedOrders} failed, ${run.unswept} unswept`);
    return { rate: CROWDS.includes(w.id) ? 2 : 0.2, compression, run };
  },
}));

// Self-check: payouts with no wait (amounts off the menu, paid at the two slots' floor, docs/spec.md §9) are
// linked by timing alone: A3 reads no amounts. Evenly spaced, ten slots apart: the pipeline's own jitter (a
// slot or two) must not hide the order.
const offMenu = 1234n * 10n ** BigInt(assets.get('usdc')!.decimals) / 100n;
const offJob: QueuedJob<RunResult> = {
  run: () => {
    log(`self-check: no wait (off the menu), start at ${at()}`);
    return runOnce({
      rate: 0.25,
      compression: 4,
      ordersPerRow: 24,
      policy,
      workloads: [{ id: 'self-check', label: 'self-check: no wait (off the menu)', regular: true, draw: () => ({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', amount: offMenu, mode: 'exact_in' as const }) }],
      assets,
      random: seeded(seed + 1000),
      log: (m) => log(`[self-check] ${m.trimStart()}`),
    });
  },
};

// Cold start (issue 41): a fresh Hush, five default orders of one private class and five of amounts off the
// menu, evenly spaced; no private one may be held past twice the non-private latency (none asked to wait).
const tenUsdc = 10n * 10n ** BigInt(assets.get('usdc')!.decimals);
const coldWorkloads = [
  { id: 'cold-std', label: 'cold start: 10 USDC, default', regular: true, draw: () => ({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', amount: tenUsdc, mode: 'exact_in' as const }) },
  { id: 'cold-free', label: 'cold start: 12.34 USDC (not private)', regular: true, draw: () => ({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', amount: 1234n * tenUsdc / 1000n, mode: 'exact_in' as const }) },
];
// Run by default and with --rows naming it (cold-start): its 5 orders are real time (a minute). Since issue 51 a
// young Hush holds a class that is a crowd; five orders 10 s apart are not one, and go at once.
const coldJob: QueuedJob<RunResult> | null = onlyRows && !onlyRows.includes('cold-start') ? null : {
  run: () => {
    log(`cold start: a fresh Hush, 5 default orders of one class, start at ${at()}`);
    return runOnce({ rate: 0.1, compression: 1, ordersPerRow: 5, policy, workloads: coldWorkloads, assets, random: seeded(seed + 1001), log: (m) => log(`[cold start] ${m.trimStart()}`) });
  },
};
// One queue for every run. The heavy runs one after the other, λ = 1 first: queued last, so that its scoring
// overlapped only light runs, it left the λ = 0.2 run to start beside two runs starting their Hush and chain, and
// 38 of λ = 0.2's deposits died on blockhashes expired before they were sent (2026-11-26; a blockhash lives
// 3.75 s at ×16, 15 s at λ = 1's ×4). λ = 0.2 then runs beside λ = 1's scoring, at the lowest priority. The
// cold crowd goes last among the heavy runs. The light runs go the longest first (their wall times, 2026-11-26:
// mixed 584 s, patient 532, burst-silence 434, daily-cycle 354, λ = 0.05 203, the cold start about 125, the
// self-check about 40), so the short ones fill the last gaps.
const rankOf = new Map<QueuedJob<never>, number>();
rateJobs.forEach((job, k) => rankOf.set(job as QueuedJob<never>, isHeavy(sortedJobs[k]!) ? k : sortedJobs[k]!.patient ? 60 + k : 200 + k));
const SHAPED_RANK: Record<string, number> = { 'cold-crowd': 50, 'cold-crowd-partners': 51, 'burst-silence': 100, 'daily-cycle': 101 };
shapedJobs.forEach((job, k) => rankOf.set(job as QueuedJob<never>, SHAPED_RANK[shaped[k]!.id] ?? 150));
if (coldJob) rankOf.set(coldJob as QueuedJob<never>, 300);
rankOf.set(offJob as QueuedJob<never>, 301);
const queue = [...rankOf].sort((a, b) => a[1] - b[1]).map(([job]) => job);
const queued = runQueue<unknown>(parallel, queue as QueuedJob<unknown>[]);
const resultOf = <T>(job: QueuedJob<T>) => queued[queue.indexOf(job as QueuedJob<never>)] as Promise<T>;
const running = rateJobs.map(resultOf);
const shapedRuns = shapedJobs.map(resultOf);
const offRun = resultOf(offJob);
const coldRun: Promise<RunResult | null> = coldJob ? resultOf(coldJob) : Promise.resolve(null);
const results: RateResult[] = (await Promise.all(running)).sort((a, b) => a.i - b.i);
const shapedResults: RateResult[] = await Promise.all(shapedRuns);
const off: RunResult = await offRun;
const cold: RunResult | null = await coldRun;

printTable([...results, ...shapedResults], off);
printTargets(results, policy);
if (cold) printColdStart(cold);
for (const l of shapedTargets(shapedResults)) console.log(l);
const grid = gridWanted ? await gridPhase({ seed, log }) : null;
if (grid) for (const l of printGridPhase(grid)) console.log(l);
const failures = selfChecks(results, off);
if (grid && (grid.splitByAmount > 0 || grid.steps.length === 0)) failures.push(`fee grid phase: ${grid.steps.length} steps, ${grid.splitByAmount} releases split by payout amount`);
for (const f of failures) log(`SELF-CHECK FAILED: ${f}`);
log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (args.has('write-docs')) writeDocs(results, off, { policy, seed, seconds: (Date.now() - t0) / 1000, shaped: shapedResults });
process.exit(failures.length > 0 ? 1 : 0);
