/**
 * Issue 51's traffic shapes through Hush's own release and quote, without a chain: a fresh Hush's crowd, a
 * burst then silence, a daily cycle, steady Poisson. Each arrival is quoted as Hush quotes (expectedRelease
 * on what Hush has seen of its class), passes run once a second (decideRelease, a class's traffic read as
 * the release loop reads it: its deposits in the window but its waiting set's opener, by age bucket), and
 * each order's release is checked against its quote: did it get the set it was promised, within the wait?
 * What it ignores: Hush's pipeline latency and the chain (bench:privacy measures those).
 */
import { classArrivals, type ClassArrivals } from '../../src/domain/class-forecast.ts';
import { decideRelease, expectedRelease, holdMs, PROMISE_ODDS, type ReleasePolicy } from '../../src/domain/class-release.ts';
import { seeded } from '../../src/support/seeded-random.ts';

export interface Arrival {
  classKey: string;
  atMs: number;
  /** Scored (its release and quote counted); the rest is traffic only. */
  scored: boolean;
  /** Scored orders are also summed per tag (the daily cycle's trough and peak). */
  tag?: string;
}

export interface ScenarioResult {
  orders: number;
  /** 1/n over scored orders (the ideal adversary's one link per release). */
  linked: number;
  setP10: number;
  setMedian: number;
  delayP50S: number;
  delayP95S: number;
  /** Share of scored orders released with at least the quoted anonymitySet. */
  setKept: number;
  /** Share of scored orders sent within the quoted delaySeconds. */
  delayKept: number;
  /** Median quoted anonymitySet and anonymitySetLikely. */
  quotedSet: number;
  quotedLikely: number;
  /** Each scored order's release size (releasedWith), in no particular order. */
  sizes: number[];
}

interface Outcome {
  set: number;
  waitedMs: number;
  quote: { set: number; likely: number; delayMs: number };
}

function summarize(xs: Outcome[]): ScenarioResult {
  const sets = xs.map((x) => x.set);
  const delays = xs.map((x) => x.waitedMs / 1000);
  const n = Math.max(1, xs.length);
  return {
    orders: xs.length,
    linked: sets.reduce((s, k) => s + 1 / k, 0) / n,
    setP10: quantile(sets, 0.1),
    setMedian: quantile(sets, 0.5),
    delayP50S: quantile(delays, 0.5),
    delayP95S: quantile(delays, 0.95),
    setKept: xs.filter((x) => x.set >= x.quote.set).length / n,
    delayKept: xs.filter((x) => x.waitedMs <= x.quote.delayMs + 1).length / n,
    quotedSet: quantile(xs.map((x) => x.quote.set), 0.5),
    quotedLikely: quantile(xs.map((x) => x.quote.likely), 0.5),
    sizes: sets,
  };
}

const BUCKETS = 360;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

/** What Hush sees of one class at `now`: its arrivals in the window but those in `except`, over the span watched. */
function evidence(times: number[], now: number, windowMs: number, observedMs: number, priorMs: number, except: Set<number>, memoryMs = Infinity): ClassArrivals {
  const bucketMs = windowMs / BUCKETS;
  const counts = new Array<number>(BUCKETS).fill(0);
  // times ascending: walk back from the newest arrival not after now.
  let i = upperBound(times, now) - 1;
  for (; i >= 0; i--) {
    const t = times[i]!;
    if (t < now - windowMs) break;
    if (except.has(t)) continue;
    const age = Math.floor((now - t) / bucketMs);
    if (age < BUCKETS) counts[BUCKETS - 1 - age]! += 1;
  }
  return classArrivals(counts, bucketMs, observedMs, priorMs, memoryMs);
}

/** Every class's arrivals as one class's, but the one at `opener` (a waiting set's opener). */
function crowdOf(byClass: Map<string, number[]>, now: number, windowMs: number, observedMs: number, priorMs: number, opener: number | undefined, memoryMs: number): ClassArrivals {
  const times = [...byClass.values()].flat().sort((a, b) => a - b);
  return evidence(times, now, windowMs, observedMs, priorMs, new Set(opener === undefined ? [] : [opener]), memoryMs);
}

function upperBound(xs: number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Runs `arrivals` (any order) through the release, passes every policy.passEveryMs until `endMs`. `warmMs`:
 * how long Hush had watched before time 0 (0: a fresh Hush, watching from the first arrival).
 */
export function simulateScenario(
  arrivals: Arrival[],
  policy: ReleasePolicy,
  opts: { windowMs: number; endMs: number; warmMs?: number; seed?: number; estimator?: 'episodes' | 'rate'; memoryMs?: number; releaseMemoryMs?: number },
): ScenarioResult & { byTag: Map<string, ScenarioResult> } {
  // 'rate': the estimate before issue 51, for comparison: deposits in the window over the span watched (the
  // waiting members' own left out, nothing before a fourteenth of the hold), the quote its central estimate.
  const before = opts.estimator === 'rate';
  const rand = seeded(opts.seed ?? 7);
  const priorMs = Math.min(opts.windowMs, holdMs(policy) / 14);
  const memoryMs = opts.memoryMs ?? holdMs(policy);
  const releaseMemoryMs = opts.releaseMemoryMs ?? memoryMs;
  const sorted = [...arrivals].sort((a, b) => a.atMs - b.atMs).map((a, i) => ({ ...a, id: String(i).padStart(9, '0') }));
  const firstAt = sorted.length ? sorted[0]!.atMs : 0;
  const observed = (now: number) => Math.min(opts.windowMs, now - firstAt + (opts.warmMs ?? 0));
  const byClass = new Map<string, number[]>();
  const waiting: { id: string; classKey: string; confirmedAt: number }[] = [];
  const quote = new Map<string, { set: number; likely: number; delayMs: number }>();
  const outcomes = new Map<string, Outcome>();
  const scored = new Map(sorted.filter((a) => a.scored).map((a) => [a.id, a]));
  let next = 0;
  const spreadMs = policy.spreadFromMs + PROMISE_ODDS * policy.spreadMs;
  for (let now = 0; now <= opts.endMs; now += policy.passEveryMs) {
    while (next < sorted.length && sorted[next]!.atMs <= now) {
      const a = sorted[next++]!;
      const times = byClass.get(a.classKey) ?? [];
      // The quote, made as the order is placed: on everything of its class Hush has seen.
      const e = evidence(times, a.atMs, opts.windowMs, observed(a.atMs), priorMs, new Set(), before ? Infinity : memoryMs);
      const hasAny = e.arrivals > 0;
      if (before) {
        const watched = observed(a.atMs);
        const rate = watched < priorMs ? undefined : e.arrivals / watched;
        const r = expectedRelease(rate, policy);
        const set = Math.max(1, Math.floor(r.batch));
        quote.set(a.id, { set, likely: set, delayMs: r.delaySeconds * 1000 + (rate ? policy.spreadFromMs + policy.spreadMs / 2 : policy.minGapMs / 2) });
      } else {
        const crowd = observed(a.atMs) < priorMs ? crowdOf(byClass, a.atMs, opts.windowMs, observed(a.atMs), priorMs, undefined, memoryMs) : undefined;
        const r = expectedRelease(hasAny ? e : undefined, policy, undefined, crowd);
        const promised = Math.max(1, Math.floor(r.promisedBatch));
        quote.set(a.id, { set: promised, likely: Math.max(promised, Math.floor(r.batch)), delayMs: r.promisedDelaySeconds * 1000 + (hasAny || r.promisedDelaySeconds > 0 ? spreadMs : policy.minGapMs) });
      }
      times.push(a.atMs);
      byClass.set(a.classKey, times);
      waiting.push({ id: a.id, classKey: a.classKey, confirmedAt: a.atMs });
    }
    if (waiting.length === 0) continue;
    const openers = new Map<string, number>();
    for (const w of waiting) if (!openers.has(w.classKey) || w.confirmedAt < openers.get(w.classKey)!) openers.set(w.classKey, w.confirmedAt);
    const seen = new Map<string, ClassArrivals>();
    const waitingAt = before ? new Set(waiting.map((w) => w.confirmedAt)) : new Set<number>();
    const rate = (key: string): ClassArrivals | number | undefined => {
      if (before) {
        const watched = observed(now);
        if (watched < priorMs) return undefined;
        return evidence(byClass.get(key) ?? [], now, opts.windowMs, watched, 0, waitingAt).arrivals / watched;
      }
      if (!seen.has(key)) seen.set(key, evidence(byClass.get(key) ?? [], now, opts.windowMs, observed(now), priorMs, new Set([openers.get(key)!]), releaseMemoryMs));
      return seen.get(key);
    };
    // A young Hush's crowd, as the release loop reads it: every class's arrivals but this class's opener;
    // read only while Hush is young, the one time the release looks at it.
    const crowd = (key: string): ClassArrivals | undefined => (before || observed(now) >= priorMs ? undefined : crowdOf(byClass, now, opts.windowMs, observed(now), priorMs, openers.get(key)!, releaseMemoryMs));
    const { release } = decideRelease(waiting, now, policy, rate, rand, undefined, crowd);
    if (release.length === 0) continue;
    const gone = new Set(release.map((r) => r.id));
    for (const r of release) {
      if (!scored.has(r.id)) continue;
      outcomes.set(r.id, { set: r.releasedWith, waitedMs: r.at - scored.get(r.id)!.atMs, quote: quote.get(r.id)! });
    }
    for (let i = waiting.length - 1; i >= 0; i--) if (gone.has(waiting[i]!.id)) waiting.splice(i, 1);
  }
  const all = [...outcomes.values()];
  const byTag = new Map<string, ScenarioResult>();
  for (const tag of new Set([...scored.values()].map((a) => a.tag).filter((t): t is string => t !== undefined))) {
    byTag.set(tag, summarize([...outcomes].filter(([id]) => scored.get(id)!.tag === tag).map(([, o]) => o)));
  }
  return { ...summarize(all), byTag };
}

/** Poisson arrivals of each class at its share of `rateAt(t)` per second (thinning), from `fromMs` to `toMs`. */
export function poissonArrivals(shares: Map<string, number>, rateAt: (ms: number) => number, peak: number, fromMs: number, toMs: number, rand: () => number, scored: (ms: number) => boolean): Arrival[] {
  const out: Arrival[] = [];
  const keys = [...shares.keys()];
  const cum: number[] = [];
  let acc = 0;
  for (const k of keys) cum.push((acc += shares.get(k)!));
  let t = fromMs;
  for (;;) {
    t += (-Math.log(1 - rand()) / peak) * 1000;
    if (t > toMs) break;
    if (rand() * peak > rateAt(t)) continue;
    const u = rand() * acc;
    const k = keys[cum.findIndex((c) => c >= u)]!;
    out.push({ classKey: k, atMs: t, scored: scored(t) });
  }
  return out;
}
