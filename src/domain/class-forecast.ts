/**
 * How much company a class can expect (docs/spec.md §9, issue 51): a forecast of its arrivals within a
 * span, from what Hush has seen of it, that neither takes a burst for a steady rate nor a crowd still
 * arriving for no traffic (docs/decisions.md, "Class arrivals counted in episodes").
 *
 * What Hush has seen of a class is its arrivals per bucket over the traffic window (or Hush's life, when
 * shorter). Two things make that different from a rate:
 * - **Episodes.** Arrivals that come together (a payroll run, a campaign) are one event, not many: the
 *   buckets' index of dispersion D (variance over mean, at least 1) is the mean size of an episode, and
 *   the class has seen arrivals / D independent episodes.
 * - **Exposure.** The span watched, plus a prior silence while Hush is young: a handful of arrivals in the
 *   first seconds of a fresh Hush says little, and the prior weighs less as the span grows.
 * Episodes then arrive as a Poisson process of unknown rate (Gamma posterior: shape = episodes, rate =
 * exposure), so the episodes within a span s are negative-binomial, NB(episodes, exposure / (exposure + s)),
 * and the arrivals D times that. With many episodes that is the Poisson count of the measured rate; with
 * few it is wide, and its lower quantiles are what a quote may promise (arrivalsAtOdds).
 *
 * The release reads the same evidence arrival by arrival (anyArrivalWeight, D taken as 1): a burst's members
 * are company for whoever waits with them, and holding on costs only delay within the budget. What ends a
 * hold for a burst, or a crowd, that has gone is its silence (SILENCE_SURPRISE), not the episodes.
 */

/** What Hush has seen of a class: arrivals, the exposure they were seen over, and how clustered. */
export interface ClassArrivals {
  arrivals: number;
  /** ms watched, prior silence included; > 0. */
  exposureMs: number;
  /** Mean arrivals per episode, ≥ 1 (1: arrivals independent, as Poisson). */
  dispersion: number;
  /** How long since the newest arrival, ms (at least; bucketed); absent: not known. */
  silentMs?: number;
  /** The prior silence within exposureMs, ms (a young Hush's: see young()); absent: none. */
  priorMs?: number;
  /** The share of exposureMs that is the silence since the newest arrival (weighed as the exposure is); absent: 0. */
  silentExposureMs?: number;
  /** The arrivals in the span watched, each counted once whatever its age (`arrivals` weighs them); absent: `arrivals`. */
  seen?: number;
}

/**
 * A silence this many expected arrivals long says the traffic stopped (odds e^−6.9, 1 in 1,000, of a steady
 * class): a crowd that has gone, not one still arriving. The forecast then expects nobody, and a class
 * nobody asked to wait in goes with the company that is there (`too-slow`) rather than being held for
 * arrivals its own past no longer supports. Not 1 in 100: a class sees many gaps within one hold (forty at
 * 0.05 a second), so one of them that rare came often enough to cut steady releases short (issue 51's
 * scenarios: λ = 1 linked 4.9 % against 4.1 % at 1 in 1,000 and 4.0 % before the forecast); 1 in 10,000 cost
 * the cold crowd's last members half a minute more for nothing measurable.
 */
export const SILENCE_SURPRISE = Math.log(1000);

/**
 * A class's evidence: what was seen of it, or a known rate in deposits per ms (a certain Poisson stream:
 * the simulations' true rate). undefined: nothing seen.
 */
export type ClassEvidence = number | ClassArrivals;

/** The index of dispersion of bucket counts (variance over mean), at least 1; 1 with fewer than two buckets or no arrivals. */
export function dispersionOf(counts: readonly number[]): number {
  const n = counts.length;
  if (n < 2) return 1;
  let sum = 0;
  let squares = 0;
  for (const c of counts) {
    sum += c;
    squares += c * c;
  }
  if (sum === 0) return 1;
  const mean = sum / n;
  const variance = (squares - n * mean * mean) / (n - 1);
  return Math.max(1, variance / mean);
}

/**
 * What a class's buckets say: `counts` oldest first, each `bucketMs` long, the last ending now; only the
 * last `observedMs` of them were watched (a young Hush). `priorSilenceMs` is added to the exposure. With a
 * `memoryMs`, each bucket's arrivals and exposure weigh exp(−age / memoryMs): traffic that rose or fell
 * within the window (a daily cycle) is read at its recent level, not the window's mean; the weighted
 * arrivals are fewer, so the forecast is wider too.
 */
export function classArrivals(counts: readonly number[], bucketMs: number, observedMs: number, priorSilenceMs: number, memoryMs = Infinity): ClassArrivals {
  const watchedMs = Math.max(1, Math.min(counts.length * bucketMs, observedMs));
  const watched = Math.max(1, Math.min(counts.length, Math.ceil(watchedMs / bucketMs)));
  const seen = counts.slice(counts.length - watched);
  let newest = seen.length - 1;
  while (newest >= 0 && seen[newest]! === 0) newest--;
  const silentMs = newest < 0 ? undefined : (seen.length - 1 - newest) * bucketMs;
  let arrivals = 0;
  let exposureMs = 0;
  let silentExposureMs = 0;
  for (let i = 0; i < seen.length; i++) {
    const age = seen.length - 1 - i;
    const w = Number.isFinite(memoryMs) ? Math.exp(-((age + 0.5) * bucketMs) / memoryMs) : 1;
    arrivals += w * seen[i]!;
    // The oldest watched bucket may be watched in part (a young Hush).
    const span = age === seen.length - 1 ? watchedMs - (seen.length - 1) * bucketMs : bucketMs;
    exposureMs += w * span;
    if (i > newest) silentExposureMs += w * span;
  }
  const priorMs = Math.max(0, priorSilenceMs);
  const count = seen.reduce((a, b) => a + b, 0);
  return { arrivals, exposureMs: Math.max(1, exposureMs) + priorMs, dispersion: dispersionOf(seen), ...(silentMs !== undefined ? { silentMs, silentExposureMs } : {}), priorMs, seen: count };
}

/**
 * The evidence the forecast reads: nobody expected once its silence says the traffic stopped (SILENCE_SURPRISE).
 * The silence is measured against the rate seen before it: counted over an exposure that includes the
 * silence itself, n arrivals could never be more surprising than n, and a class seen four times was never
 * taken to have stopped (a cold start's orders were held to their deadline).
 */
function live(e: ClassEvidence): ClassEvidence {
  if (typeof e === 'number' || e.silentMs === undefined) return e;
  return (e.arrivals / Math.max(1, e.exposureMs - (e.silentExposureMs ?? 0))) * e.silentMs > SILENCE_SURPRISE ? 0 : e;
}

/**
 * Whether the class is seen by a young Hush: watched for less than the prior silence. Until then what it has
 * seen is not yet a rate (issue 41: a fresh Hush holds no order for a class nobody else uses), but a crowd is
 * (crowdFills).
 */
export function young(e: ClassEvidence | undefined): boolean {
  return e !== undefined && typeof e !== 'number' && (e.priorMs ?? 0) > 0 && e.exposureMs - (e.priorMs ?? 0) < (e.priorMs ?? 0);
}

/**
 * A class seen as fewer independent episodes than this over the whole span watched (each arrival counted once,
 * bursts as one) has no rate yet that a hold or a promise can stand on (issue 71): one earlier order made a
 * second test send's quote say "likely 6 within 783 s" and held it 672 s for nobody. Three, because the rate's
 * lower bound at the promise's odds (the Gamma posterior's 20 % quantile) is under half its estimate below
 * three episodes (0.22 of it at one, 0.41 at two, 0.51 at three): anything thinner promises a crowd on a guess.
 */
export const MIN_EPISODES = 3;

/** Whether the class's history is thin: seen as fewer than MIN_EPISODES episodes in the span watched. */
export function thinHistory(e: ClassEvidence | undefined): boolean {
  if (e === undefined || typeof e === 'number') return false;
  return (e.seen ?? e.arrivals) / e.dispersion < MIN_EPISODES;
}

/**
 * Whether what a class has seen is not yet a rate: seen by a young Hush, or thin. Such a class is held only
 * when that is worth it at the promise's odds (class-release.ts), otherwise its members go at once, as with no
 * traffic; and its quote's central estimate is no more than its promise (docs/spec.md §9, docs/privacy.md).
 */
export function unproven(e: ClassEvidence | undefined): boolean {
  return young(e) || thinHistory(e);
}

/**
 * Whether a young Hush's class is a crowd: what it has watched alone (no prior silence) brings `needed` more
 * arrivals within `spanMs` at odds of at least 1 − q. A handful of deposits seconds apart is; five ten
 * seconds apart are not, and go at once as on a fresh Hush (docs/decisions.md, "A crowd on a young Hush").
 */
export function crowdFills(e: ClassEvidence | undefined, needed: number, spanMs: number, q: number): boolean {
  if (needed <= 0) return true;
  if (e === undefined || typeof e === 'number') return arrivalsAtOdds(e, spanMs, q) >= needed;
  const watched: ClassArrivals = { ...e, exposureMs: Math.max(1, e.exposureMs - (e.priorMs ?? 0)), priorMs: 0 };
  return arrivalsAtOdds(watched, spanMs, q) >= needed;
}

/** Whether the class had traffic, but its silence since says it stopped. */
export function stopped(e: ClassEvidence | undefined): boolean {
  return hasTraffic(e) && !hasTraffic(live(e));
}

/** Whether the evidence shows any traffic at all. */
export function hasTraffic(e: ClassEvidence | undefined): e is ClassEvidence {
  if (e === undefined) return false;
  return typeof e === 'number' ? e > 0 : e.arrivals > 0;
}

/** The expected arrivals within `spanMs`: the measured rate times the span. */
export function meanArrivals(evidence: ClassEvidence | undefined, spanMs: number): number {
  const e = evidence === undefined ? undefined : live(evidence);
  if (!hasTraffic(e)) return 0;
  return typeof e === 'number' ? e * spanMs : (e.arrivals / e.exposureMs) * spanMs;
}

/**
 * −ln P(no arrival within `spanMs`), arrivals counted one by one: the expected arrivals of the Poisson
 * stream that would be as likely to bring nobody. For a known rate it is the expected arrivals; for a
 * class seen briefly it is less than the mean (the rate itself is uncertain).
 */
export function anyArrivalWeight(evidence: ClassEvidence | undefined, spanMs: number): number {
  const e = evidence === undefined ? undefined : live(evidence);
  if (!hasTraffic(e) || spanMs <= 0) return 0;
  if (typeof e === 'number') return e * spanMs;
  return e.arrivals * Math.log1p(spanMs / e.exposureMs);
}

/** The span within which the evidence gives at least one arrival odds of exactly exp(−weight) of none: anyArrivalWeight's inverse. */
export function spanForAnyArrivalWeight(evidence: ClassEvidence | undefined, weight: number): number {
  const e = evidence === undefined ? undefined : live(evidence);
  if (!hasTraffic(e)) return Infinity;
  if (typeof e === 'number') return weight / e;
  return e.exposureMs * Math.expm1(weight / e.arrivals);
}

/** The q-quantile of a Poisson count of mean `mean`. */
function poissonQuantile(mean: number, q: number): number {
  if (mean <= 0) return 0;
  if (mean > 400) return Math.max(0, Math.floor(mean + normalQuantile(q) * Math.sqrt(mean)));
  let p = Math.exp(-mean);
  let cdf = p;
  let n = 0;
  while (cdf < q) {
    n++;
    p *= mean / n;
    cdf += p;
  }
  return n;
}

/** The q-quantile of NB(r, p) (failures before the r-th success, success odds p; r need not be whole). */
function negBinQuantile(r: number, p: number, q: number): number {
  const mean = (r * (1 - p)) / p;
  if (mean <= 0) return 0;
  const logP0 = r * Math.log(p);
  // Summed term by term while the first term is a double; a count that large with many episodes is near
  // normal (a few episodes stay skewed, and their first term is never that small).
  if (logP0 < -700 || (mean > 400 && r >= 30)) return Math.max(0, Math.floor(mean + normalQuantile(q) * Math.sqrt(mean / p)));
  let pn = Math.exp(logP0);
  let cdf = pn;
  let n = 0;
  while (cdf < q && n < 10_000_000) {
    pn *= ((n + r) / (n + 1)) * (1 - p);
    n++;
    cdf += pn;
  }
  return n;
}

/** The standard normal's quantile (Acklam's rational approximation; enough for a count's quantile). */
function normalQuantile(q: number): number {
  const a = [-39.6968302866538, 220.946098424521, -275.928510446969, 138.357751867269, -30.6647980661472, 2.50662827745924];
  const b = [-54.4760987982241, 161.585836858041, -155.698979859887, 66.8013118877197, -13.2806815528857];
  const c = [-0.00778489400243029, -0.322396458041136, -2.40075827716184, -2.54973253934373, 4.37466414146497, 2.93816398269878];
  const d = [0.00778469570904146, 0.32246712907004, 2.445134137143, 3.75440866190742];
  const lo = 0.02425;
  if (q < lo) {
    const t = Math.sqrt(-2 * Math.log(q));
    return (((((c[0]! * t + c[1]!) * t + c[2]!) * t + c[3]!) * t + c[4]!) * t + c[5]!) / ((((d[0]! * t + d[1]!) * t + d[2]!) * t + d[3]!) * t + 1);
  }
  if (q > 1 - lo) return -normalQuantile(1 - q);
  const t = q - 0.5;
  const s = t * t;
  return ((((((a[0]! * s + a[1]!) * s + a[2]!) * s + a[3]!) * s + a[4]!) * s + a[5]!) * t) / (((((b[0]! * s + b[1]!) * s + b[2]!) * s + b[3]!) * s + b[4]!) * s + 1);
}

/**
 * The arrivals within `spanMs` the class brings with odds of at least 1 − q: the q-quantile of the
 * forecast (q = 0.2: what it brings at least four times in five). Whole episodes: D times the episodes' quantile.
 */
export function arrivalsAtOdds(evidence: ClassEvidence | undefined, spanMs: number, q: number): number {
  const e = evidence === undefined ? undefined : live(evidence);
  if (!hasTraffic(e) || spanMs <= 0) return 0;
  if (typeof e === 'number') return poissonQuantile(e * spanMs, q);
  const episodes = e.arrivals / e.dispersion;
  return e.dispersion * negBinQuantile(episodes, e.exposureMs / (e.exposureMs + spanMs), q);
}

/**
 * The shortest span (ms, at most `withinMs`) within which the class brings `n` arrivals with odds of at
 * least 1 − q; undefined when not within `withinMs`.
 */
export function spanToBring(e: ClassEvidence | undefined, n: number, q: number, withinMs: number): number | undefined {
  if (n <= 0) return 0;
  if (arrivalsAtOdds(e, withinMs, q) < n) return undefined;
  let lo = 0;
  let hi = withinMs;
  // Arrivals at fixed odds grow with the span: bisect to a millisecond or a thousandth of the span.
  while (hi - lo > Math.max(1, withinMs / 1000)) {
    const mid = (lo + hi) / 2;
    if (arrivalsAtOdds(e, mid, q) >= n) hi = mid;
    else lo = mid;
  }
  return hi;
}
