/**
 * bench:privacy-bound — what Hush's class release can reach under the bench's own workloads with an ideal
 * adversary's arithmetic, in seconds and without a chain: the trade-off table of docs/privacy.md, per
 * menu of private amounts and traffic level.
 *
 * The class mix comes from the workloads' own draw (200,000 orders per row) under the chosen menu. Each
 * class then arrives as Poisson at its share of λ for several simulated hours, and Hush's own release
 * decision (decideRelease, with the policy Hush's configuration gives, passes once a second) releases
 * them, each class's rate measured as Hush measures it (deposits over the last HUSH_PRIVACY_TRAFFIC_WINDOW_S,
 * or over the simulation's life while shorter; none before a hold), or with --true-rate its true rate. The adversary links one order per release (a 1-in-n guess
 * among the n released together), so an order's chance of being linked is 1/n. What it ignores: Hush's
 * pipeline latency (a second or two), the run's edges, and whatever the real adversary exploits or misses
 * (bench:privacy measures that).
 *
 *   npm run bench:privacy-bound                            both menus, λ ∈ {0.05, 0.2, 1}, Hush's configured policy
 *   npm run bench:privacy-bound -- --menu=decade           one menu
 *   npm run bench:privacy-bound -- --target=30 --budget=1200 --k=20 --rates=0.2
 *   npm run bench:privacy-bound -- --tradeoff              targets × budgets for each menu (docs/privacy.md's table)
 *   npm run bench:privacy-bound -- --true-rate             each class's true rate instead of Hush's measurement
 *   npm run bench:privacy-bound -- --bench-span [--rates=1] [--rows=std-out] [--runs=10] [--n=1500] [--warmup=S]
 *                                                          the ideal over bench:privacy's own span (a fresh Hush, its
 *                                                          warm-up, scored span and padding) against the same span in a
 *                                                          Hush that has watched its traffic window first, by release size
 *   npm run bench:privacy-bound -- --scenarios [--estimator=rate] [--memory=S|none] [--only=steady,crowd,partners,cold,burst,cycle]
 *                                                          issue 51's shapes (cold crowd, burst then silence, daily
 *                                                          cycle, steady): release sizes and whether each quote's
 *                                                          promise (set and wait, at 4 in 5) was kept
 */
import { loadConfig } from '../src/config/config.ts';
import { releasePolicy } from '../src/config/privacy-settings.ts';
import { decideRelease, holdMs, type ReleasePolicy } from '../src/domain/class-release.ts';
import { denominationsFor, type DenominationMenu } from '../src/domain/denomination-menu.ts';
import type { PrivacyChoice } from '../src/domain/privacy-choice.ts';
import { seeded } from '../src/support/seeded-random.ts';
import { workloads } from './privacy/workloads.ts';
import { poissonArrivals, simulateScenario as simulate51, type Arrival, type ScenarioResult } from './privacy/scenario-sim.ts';
import { horizonFor } from './privacy/horizon.ts';
import { bandsLine, releaseSizeBands } from './privacy/release-sizes.ts';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const env = { ...process.env };
if (args.get('target')) env.HUSH_PRIVACY_TARGET_SET = args.get('target');
if (args.get('budget')) env.HUSH_PRIVACY_MAX_DELAY_S = args.get('budget');
if (args.get('k')) env.HUSH_PRIVACY_K = args.get('k');
if (args.get('window')) env.HUSH_PAYOUT_DELAY_S = args.get('window');
if (args.get('ceiling')) env.HUSH_PRIVACY_MAX_WAIT_S = args.get('ceiling');
const config = loadConfig(env);
const menus = (args.get('menu') ?? 'decade,1-2-5').split(',') as DenominationMenu[];
const rates = (args.get('rates') ?? '0.05,0.2,1').split(',').map(Number);
const hours = Number(args.get('hours') ?? 8);
const DRAWS = 200_000;
// --min-set=N: every order asks for a set of N (the patient row); the ceiling is then its bound.
const minSet = args.get('min-set') ? Number(args.get('min-set')) : undefined;
const choice: PrivacyChoice | undefined = minSet !== undefined ? { minAnonymitySet: minSet } : undefined;

export interface BoundResult {
  classes: number;
  linked: number;
  setP10: number;
  setMedian: number;
  delayP50: number;
  delayP95: number;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

/** Class shares of a workload row under a menu: class key → share of the row's orders. */
function classShares(menu: DenominationMenu, row: string): Map<string, number> {
  const assets = new Map(config.assets.list.map((a) => [a.assetId, a]));
  const table = { get: (id: string) => assets.get(id)!, denominations: (id: string) => denominationsFor(menu, assets.get(id)!, assets.get(id)!.denominations) };
  const w = workloads(table).find((x) => x.id === row)!;
  const rand = seeded(20261122);
  const counts = new Map<string, number>();
  for (let i = 0; i < DRAWS; i++) {
    const o = w.draw(rand);
    const key = `${o.sourceAssetId}>${o.destinationAssetId}:${o.mode}:${o.amount}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].map(([k, c]) => [k, c / DRAWS]));
}

/** Simulates `hours` of Poisson traffic at `rate` through decideRelease; scores the orders after the first budget and before the last. */
export function simulate(shares: Map<string, number>, rate: number, policy: ReleasePolicy, simHours: number, seed = 7, windowMs = config.privacyTrafficWindowS * 1000, trueRate = args.has('true-rate'), asked = choice): BoundResult {
  const rand = seeded(seed);
  const endMs = simHours * 3_600_000;
  const arrivals: { id: string; classKey: string; confirmedAt: number; choice?: PrivacyChoice }[] = [];
  for (const [key, p] of shares) {
    let t = 0;
    for (;;) {
      t += (-Math.log(1 - rand()) / (rate * p)) * 1000;
      if (t > endMs) break;
      arrivals.push({ id: String(arrivals.length).padStart(9, '0'), classKey: key, confirmedAt: t, ...(asked ? { choice: asked } : {}) });
    }
  }
  arrivals.sort((a, b) => a.confirmedAt - b.confirmedAt);
  // Hush's measurement: deposits in the window (or the life so far), nothing before it has watched a hold.
  const inWindow = new Map<string, number>();
  let tail = 0;
  let now = 0;
  const minObservedMs = Math.min(windowMs, holdMs(policy));
  const ratePerMs = (key: string): number | undefined => {
    if (trueRate) return (rate * (shares.get(key) ?? 0)) / 1000;
    if (now < minObservedMs) return undefined;
    return (inWindow.get(key) ?? 0) / Math.min(windowMs, now);
  };
  const waiting: typeof arrivals = [];
  const sets: number[] = [];
  const delays: number[] = [];
  // The edges: a hold's first members find no measured traffic, and the last ones no padding after them.
  const edgeMs = asked ? policy.ceilingMs : policy.budgetMs;
  const scoredFrom = edgeMs;
  const scoredTo = endMs - 2 * edgeMs;
  let next = 0;
  for (now = 0; now <= endMs; now += policy.passEveryMs) {
    while (next < arrivals.length && arrivals[next]!.confirmedAt <= now) {
      const a = arrivals[next++]!;
      waiting.push(a);
      inWindow.set(a.classKey, (inWindow.get(a.classKey) ?? 0) + 1);
    }
    while (tail < next && arrivals[tail]!.confirmedAt <= now - windowMs) {
      const a = arrivals[tail++]!;
      inWindow.set(a.classKey, inWindow.get(a.classKey)! - 1);
    }
    if (waiting.length === 0) continue;
    const { release } = decideRelease(waiting, now, policy, ratePerMs, rand);
    if (release.length === 0) continue;
    const gone = new Set(release.map((r) => r.id));
    for (const r of release) {
      const w = waiting.find((x) => x.id === r.id)!;
      if (w.confirmedAt < scoredFrom || w.confirmedAt > scoredTo) continue;
      sets.push(r.releasedWith);
      delays.push((r.at - w.confirmedAt) / 1000);
    }
    for (let i = waiting.length - 1; i >= 0; i--) if (gone.has(waiting[i]!.id)) waiting.splice(i, 1);
  }
  return {
    classes: shares.size,
    linked: sets.reduce((s, n) => s + 1 / n, 0) / sets.length,
    setP10: quantile(sets, 0.1),
    setMedian: quantile(sets, 0.5),
    delayP50: quantile(delays, 0.5),
    delayP95: quantile(delays, 0.95),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const ROWS = ['std-out', 'std-in', 'swap'];

/** Issue 51's traffic shapes, each order's quote checked against its release (scenario-sim.ts). */
function scenarios(): void {
  const policy = releasePolicy(config);
  const estimator = args.get('estimator') === 'rate' ? ('rate' as const) : ('episodes' as const);
  const memoryMs = args.get('memory') === undefined ? undefined : args.get('memory') === 'none' ? Infinity : Number(args.get('memory')) * 1000;
  const releaseMemoryMs = args.get('release-memory') === undefined ? undefined : Number(args.get('release-memory')) * 1000;
  const simulateScenario: typeof simulate51 = (a, p, o) => simulate51(a, p, { ...o, estimator, ...(memoryMs !== undefined ? { memoryMs } : {}), ...(releaseMemoryMs !== undefined ? { releaseMemoryMs } : {}) });
  const only = args.get('only')?.split(',');
  const want = (name: string) => !only || only.includes(name);
  const windowMs = config.privacyTrafficWindowS * 1000;
  const rand = seeded(20261125);
  const out = classShares('decade', 'std-out');
  const H = 3_600_000;
  const line = (name: string, r: ScenarioResult) =>
    console.log(`${name.padEnd(34)} ${String(r.orders).padStart(6)}  ${pct(r.linked).padStart(7)}  ${`${r.setP10} / ${r.setMedian}`.padEnd(9)}  ${`${r.delayP50S.toFixed(0)} / ${r.delayP95S.toFixed(0)}`.padEnd(11)}  ${`${r.quotedSet} / ${r.quotedLikely}`.padEnd(8)}  ${pct(r.setKept).padStart(7)}  ${pct(r.delayKept).padStart(7)}`);
  console.log(`issue 51's shapes through Hush's release and quote (target ${policy.targetSet}, budget ${policy.budgetMs / 1000} s, window ${windowMs / 1000} s); promise kept = share of scored orders released with at least the quoted set / within the quoted wait`);
  console.log('scenario                           orders   linked  set p10/50  delay p50/95  quoted/likely  set kept  wait kept');
  // Steady Poisson, warm: the standard rows.
  for (const rate of want('steady') ? [0.05, 0.2, 1] : []) {
    const hours = rate >= 1 ? 3 : 6;
    const arr = poissonArrivals(out, () => rate, rate, 0, hours * H, rand, (t) => t > H && t < hours * H - H / 2);
    line(`steady std-out λ=${rate}`, simulateScenario(arr, policy, { windowMs, endMs: hours * H, warmMs: windowMs }));
  }
  // Cold crowd: a fresh Hush, 2 orders/s of three standard classes for 60 s, then silence.
  const crowdClasses = ['usdc>usdc:exact_in:10000000', 'usdc>usdc:exact_in:100000000', 'sol>sol:exact_in:1000000000'];
  for (let i = 0; i < (want('crowd') ? 5 : 0); i++) {
    const crowd = poissonArrivals(new Map(crowdClasses.map((k) => [k, 1])), () => 2, 2, 0, 60_000, rand, () => true);
    line(`cold crowd (run ${i + 1})`, simulateScenario(crowd, policy, { windowMs, endMs: 30 * 60_000, seed: i }));
  }
  // A cold crowd of partners (issue 71's row): a fresh Hush, 96 orders at 2/s over six classes (round USDC
  // amounts moved to the nearest of 10, 100, 1,000, in both modes): the 1,000 classes see a handful each.
  // A random stream of its own, so the scenarios after it draw what they drew before it was added.
  const partnersRand = seeded(20261128);
  const partnerShares = new Map(['exact_in', 'exact_out'].flatMap((mode) => [[`usdc>usdc:${mode}:10000000`, 4], [`usdc>usdc:${mode}:100000000`, 4], [`usdc>usdc:${mode}:1000000000`, 1]] as [string, number][]));
  for (let i = 0; i < (want('partners') ? 5 : 0); i++) {
    const crowd = poissonArrivals(partnerShares, () => 2, 2, 0, 600_000, partnersRand, () => true).slice(0, 96);
    line(`cold crowd of partners (run ${i + 1})`, simulateScenario(crowd, policy, { windowMs, endMs: 30 * 60_000, seed: i }));
  }
  // Cold start (issue 41's row): a fresh Hush, five orders of one class 10 s apart, then nothing: none held.
  if (want('cold')) {
    const cold: Arrival[] = Array.from({ length: 5 }, (_, j) => ({ classKey: 'usdc>usdc:exact_in:10000000', atMs: j * 10_000, scored: true }));
    line('cold start, 5 orders 10 s apart', simulateScenario(cold, policy, { windowMs, endMs: 30 * 60_000 }));
  }
  // Burst then silence: a warm Hush (its other classes steady), a burst of 20 of one class in 30 s, then one
  // order of that class every 10 minutes; the singles are scored.
  const burstKey = 'usdc>usdc:exact_out:1000000000';
  for (let i = 0; i < (want('burst') ? 3 : 0); i++) {
    const base = poissonArrivals(out, () => 0.2, 0.2, 0, 4 * H, rand, () => false).filter((a) => a.classKey !== burstKey);
    const burst: Arrival[] = Array.from({ length: 20 }, () => ({ classKey: burstKey, atMs: H + rand() * 30_000, scored: false }));
    const singles: Arrival[] = Array.from({ length: 15 }, (_, j) => ({ classKey: burstKey, atMs: H + 30_000 + (j + 1) * 600_000, scored: true }));
    line(`burst then silence (run ${i + 1})`, simulateScenario([...base, ...burst, ...singles], policy, { windowMs, endMs: 4 * H + 1_800_000, warmMs: windowMs, seed: i }));
  }
  // Daily cycle: λ swinging ×10 between peak and trough around a mean of 0.2/s, a day of `period`.
  for (const periodH of want('cycle') ? [2, 24] : []) {
    const period = periodH * H;
    const swing = (t: number) => Math.exp(Math.log(Math.sqrt(10)) * Math.sin((2 * Math.PI * t) / period));
    const mean = 0.2 / 1.2; // the mean of exp(a·sin) for a = ln √10 is about 1.2 (I₀(1.151))
    const days = periodH >= 24 ? 2 : 4;
    const end = days * period;
    const arr = poissonArrivals(out, (t) => mean * swing(t), mean * Math.sqrt(10), 0, end, rand, (t) => t > H && t < end - H / 2);
    const tagged = arr.map((a) => ({ ...a, ...(a.scored && swing(a.atMs) < 0.5 ? { tag: 'trough' } : a.scored && swing(a.atMs) > 2 ? { tag: 'peak' } : {}) }));
    const r = simulateScenario(tagged, policy, { windowMs, endMs: end, warmMs: windowMs });
    line(`daily cycle ×10, day ${periodH} h`, r);
    line('  at trough (λ < 0.5 × its mean)', r.byTag.get('trough')!);
    line('  at peak (λ > 2 × its mean)', r.byTag.get('peak')!);
  }
}

/**
 * --bench-span: the ideal over the span bench:privacy scores at each rate (horizon.ts): a fresh Hush, the
 * warm-up it does not score, the scored span, the padding after it; Poisson arrivals of the row, Hush's release
 * with each class read as its release loop reads it (scenario-sim.ts), one link per release. Beside it the same
 * span in a Hush that has watched a whole traffic window first: the steady state the rows stand for. Their
 * difference is what the bench's span costs the ideal itself, before any chain (docs/privacy.md, "The λ = 1 gap
 * to the ideal"); the chain's rows print the same bands beside their 1-in-n guess.
 */
function benchSpan(): void {
  const policy = releasePolicy(config);
  const windowMs = config.privacyTrafficWindowS * 1000;
  const runs = Number(args.get('runs') ?? 10);
  const menu = (args.get('menu') ?? 'decade') as DenominationMenu;
  const rows = (args.get('rows') ?? ROWS.join(',')).split(',');
  const target = policy.targetSet;
  console.log(`the ideal over bench:privacy's span (menu ${menu}, target ${target}, budget ${policy.budgetMs / 1000} s, window ${windowMs / 1000} s; ${runs} runs each): a fresh Hush as the bench starts one, and the same span after a traffic window of the same traffic`);
  for (const rate of rates) {
    const span = horizonFor(rate, { budgetS: policy.budgetMs / 1000, ceilingS: policy.ceilingMs / 1000 }, Number(args.get('n') ?? 1500));
    // --warmup=S: what a longer warm-up than the bench's would buy.
    const h = args.get('warmup') ? { ...span, warmup: Number(args.get('warmup')) } : span;
    console.log(`λ = ${rate}/s: warm-up ${h.warmup} s, scored ${h.scored} s, padding ${h.padding} s`);
    for (const row of rows) {
      const shares = classShares(menu, row);
      for (const [span, leadMs] of [['bench', 0], ['steady', windowMs]] as const) {
        const sizes: number[] = [];
        for (let run = 0; run < runs; run++) {
          const rand = seeded(20261122 + run);
          const from = leadMs + h.warmup * 1000;
          const to = from + h.scored * 1000;
          const end = to + h.padding * 1000;
          const arrivals = poissonArrivals(shares, () => rate, rate, 0, end, rand, (t) => t > from && t <= to);
          sizes.push(...simulate51(arrivals, policy, { windowMs, endMs: end + policy.budgetMs, seed: run }).sizes);
        }
        const guess = sizes.reduce((a, n) => a + 1 / n, 0) / Math.max(1, sizes.length);
        console.log(`  ${row.padEnd(8)} ${span.padEnd(6)} ${String(sizes.length).padStart(6)} orders  1-in-n ${pct(guess).padStart(7)}: ${bandsLine(releaseSizeBands(sizes, target))}`);
      }
    }
  }
}

if (args.has('bench-span')) {
  benchSpan();
} else if (args.has('scenarios')) {
  scenarios();
} else if (args.has('tradeoff')) {
  console.log('| menu | λ /s | target | budget s | std-out linked | set p10 / median | delay p50 / p95 s | swap linked | swap set p10 / median | swap delay p95 s |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const menu of menus) {
    const out = classShares(menu, 'std-out');
    const swap = classShares(menu, 'swap');
    for (const rate of rates) {
      for (const [target, budget] of [[10, 420], [20, 420], [20, 840], [30, 840], [20, 1680], [40, 1680]] as const) {
        const policy = releasePolicy(loadConfig({ ...env, HUSH_PRIVACY_TARGET_SET: String(target), HUSH_PRIVACY_MAX_DELAY_S: String(budget), HUSH_PRIVACY_K: '' }));
        const a = simulate(out, rate, policy, hours);
        const b = simulate(swap, rate, policy, hours);
        console.log(`| ${menu} | ${rate} | ${target} | ${budget} | ${pct(a.linked)} | ${a.setP10} / ${a.setMedian} | ${a.delayP50.toFixed(0)} / ${a.delayP95.toFixed(0)} | ${pct(b.linked)} | ${b.setP10} / ${b.setMedian} | ${b.delayP95.toFixed(0)} |`);
      }
    }
  }
} else {
  const policy = releasePolicy(config);
  console.log(`ideal class release (one link per release, ${args.has('true-rate') ? 'true rates' : 'rates measured as Hush does'}): ${policy.fixedK ? `fixed k ${policy.targetSet}` : `target set ${policy.targetSet}`}, budget ${policy.budgetMs / 1000} s, spread ${config.payoutDelayS.min}-${config.payoutDelayS.max} s, ${minSet !== undefined ? `every order minAnonymitySet ${minSet}, ceiling ${policy.ceilingMs / 1000} s, ` : ''}${hours} h simulated per line`);
  console.log('menu     row      classes  λ /s   linked   set p10/median   delay p50/p95 s');
  for (const menu of menus) {
    for (const row of ROWS) {
      const shares = classShares(menu, row);
      for (const rate of rates) {
        const r = simulate(shares, rate, policy, hours);
        console.log(`${menu.padEnd(8)} ${row.padEnd(8)} ${String(r.classes).padStart(7)}  ${String(rate).padEnd(5)}  ${pct(r.linked).padStart(7)}  ${`${r.setP10} / ${r.setMedian}`.padEnd(15)}  ${r.delayP50.toFixed(0)} / ${r.delayP95.toFixed(0)}`);
      }
    }
  }
}
