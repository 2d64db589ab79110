/**
 * Scores the adversaries against the ground truth, one workload row at a time. Each row is analysed on
 * its own stream's deposits and payouts (thinning: the run interleaves all streams at the same rate, and
 * each row stands for a world where all of Hush's traffic is that workload at that rate).
 */
import { attack, ADVERSARIES, type AdversaryResult } from './adversary/attack.ts';
import type { AdversaryKnowledge, AdversaryId } from './adversary/models.ts';
import type { ChainView } from './adversary/observe-chain.ts';
import type { Observation } from './adversary/observation.ts';
import type { TruthRecord } from './driver.ts';
import { linkedEstimate } from './linked-estimate.ts';
import { releaseSizeBands, type SizeBand } from './release-sizes.ts';

/**
 * Tie-breaks each adversary of TIE_DRAWN guesses under (linked-estimate.ts). 16 leave the flips a quarter
 * of their one-draw error; those adversaries' matchings are solved per class, so the draws cost seconds per
 * row at λ = 1 on the scoring thread (bench:privacy prints each run's scoring time).
 */
export const DRAWS = 16;

export interface RowScore {
  row: string;
  label: string;
  rate: number;
  /** Arrivals per delay: rate × the measured median delay (real seconds). */
  lambdaD: number;
  /** Orders the workload planned; those the API refused or the driver could not place count as not completed. */
  orders: number;
  completed: number;
  /** Share of completed orders whose deposit and payout the adversary found on the chain. */
  observed: number;
  accuracy: Record<AdversaryId, number>;
  a1Links: number;
  /** A1's links that were right (A1 claims certainty: any wrong one is a bug in it). */
  a1Correct: number;
  best: AdversaryId;
  /** The best adversary's expected share of scored orders linked, over its tie-breaks (linked-estimate.ts). */
  linked: number;
  /** One standard error of `linked`, clustered by class. */
  linkedSE: number;
  confidentLinks: number;
  setP10: number;
  setMedian: number;
  delayP50S: number;
  delayP95S: number;
  costLamports: number;
  /** The best adversary's hits against shuffled truth, mean of 20 shuffles (expect about 1). */
  shuffledHits: number;
  /** Median of the quotes' `privacy.anonymitySet` (orders quoted once the traffic window had filled, padding included); NaN without one. */
  quotedSetMedian: number;
  /** The same of `privacy.anonymitySetLikely`, the central estimate. */
  quotedLikelyMedian: number;
  /**
   * The quote as a promise (issue 51), over the scored completed private orders: the share released with at
   * least the quoted anonymitySet (its receipt's releasedWith), and the share delivered within the quoted
   * duration (the wait at the same odds plus Hush's own settlement time); per tag too. NaN without one.
   */
  promise: PromiseKept & { byTag: Record<string, PromiseKept> };
  /** Median releasedWith of the scored completed private orders. */
  releasedMedian: number;
  /** Orders observed as traffic but not scored (the padding after the scored span). */
  padding: number;
  /**
   * Scored orders released by class, the mean of 1/releasedWith over the row's completed orders (an order
   * that went alone counts 1): the share a 1-in-n guess within each release would link. The best
   * adversary's share above it is what it learns beyond the release sizes.
   */
  releaseGuess: number;
  /** The same guess by release size (release-sizes.ts): where in the releases its share sits; absent without a target. */
  releaseBands?: SizeBand[];
  /**
   * Scored completed private orders whose status lacked releasedWith at the driver's first read showing them
   * `completed` (the driver polls each second: a lag under that is not seen), and those lacking it when read final.
   */
  releasedWithLate: number;
  /** Of those, how many said why (privacy.releasedWithPending) at that read. */
  releasedWithExplained: number;
  releasedWithMissing: number;
  /** Completed private orders whose releasedWith (null included) differs from the burst the bench counts on the chain. */
  releasedWithMismatches: string[];
  releasedChecked: number;
}

/** The order's class as the plan pins it (source, destination, mode, amount). */
const classOf = (r: TruthRecord) => `${r.plan.sourceAssetId}>${r.plan.destinationAssetId}:${r.plan.mode}:${r.plan.amount}`;

/**
 * For each completed private order (its quote said so), the payouts of its class (source, destination,
 * mode, pinned amount, from the plan) in its burst on the chain: payouts of the class a gap of at most
 * `spanSlots` apart. `all`: every record of the run (classes are Hush-wide, not per row). What the status
 * says plays no part, so a release Hush under-reports is caught too. Releases of one class closer than a
 * spread (λ = 5 and up) would merge here and be reported as mismatches.
 */
export function chainBurstSizes(all: TruthRecord[], payoutSlot: Map<string, number>, spanSlots: number): Map<string, number> {
  const byClass = new Map<string, { id: string; slot: number }[]>();
  for (const r of all) {
    const slot = payoutSlot.get(`${r.recipient}:${r.plan.destinationAssetId}`);
    if (r.status !== 'completed' || slot === undefined || !r.quoted?.standard) continue;
    const key = classOf(r);
    byClass.set(key, [...(byClass.get(key) ?? []), { id: r.trackingId, slot }]);
  }
  const sizes = new Map<string, number>();
  for (const members of byClass.values()) {
    members.sort((a, b) => a.slot - b.slot);
    let start = 0;
    for (let i = 1; i <= members.length; i++) {
      if (i === members.length || members[i]!.slot - members[i - 1]!.slot > spanSlots) {
        for (let j = start; j < i; j++) sizes.set(members[j]!.id, i - start);
        start = i;
      }
    }
  }
  return sizes;
}

export interface PromiseKept {
  orders: number;
  setKept: number;
  waitKept: number;
}

/** Whether each scored private order got what its quote promised (a set at least, a delivery within). */
export function promiseKept(orders: TruthRecord[]): PromiseKept {
  const kept = orders.filter((r) => r.quoted?.standard && r.releasedWith != null && r.delayMs !== null);
  const n = kept.length;
  return {
    orders: n,
    setKept: n ? kept.filter((r) => r.releasedWith! >= r.quoted!.anonymitySet).length / n : NaN,
    waitKept: n ? kept.filter((r) => r.delayMs! <= r.quoted!.duration * 1000).length / n : NaN,
  };
}

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** The observation restricted to one stream: its deposits by signature, its payouts by recipient. */
export function thin(view: Observation, records: TruthRecord[]): Observation {
  const sigs = new Set(records.map((r) => r.depositSignature));
  const recipients = new Set(records.map((r) => r.recipient));
  return { deposits: view.deposits.filter((d) => sigs.has(d.signature)), payouts: view.payouts.filter((p) => recipients.has(p.recipient)) };
}

function costPerOrder(view: ChainView, obs: Observation, orders: number): number {
  const mine = new Set(obs.payouts.flatMap((p) => p.signatures));
  const accounts = new Set(obs.deposits.map((d) => d.account));
  let lamports = 0n;
  for (const t of view.hushTransactions) {
    if (t.kind === 'payout' && mine.has(t.signature)) lamports += t.feePayerCost;
    // A sweep's fee only: the deposit accounts' rent it recovers was the sender's, not a saving of Hush's.
    if (t.kind === 'sweep' && t.depositAccounts.length > 0) {
      const share = t.depositAccounts.filter((a) => accounts.has(a)).length;
      lamports += (t.fee * BigInt(share)) / BigInt(t.depositAccounts.length);
    }
  }
  return orders > 0 ? Number(lamports) / orders : 0;
}

/** What a row is scored with besides the chain, its records and the knowledge. */
export interface RowMeta {
  row: string;
  label: string;
  rate: number;
  compression: number;
  random: () => number;
  planned: number;
  quotesFromMs?: number;
  bursts?: Map<string, number>;
  /** Tie-breaks per adversary (default DRAWS). */
  draws?: number;
  /** The policy's target set (or fixed k): the bands of releaseBands. */
  targetSet?: number;
}

export type ScoredRow = RowScore & { results: Record<AdversaryId, AdversaryResult> };

export function scoreRow(view: ChainView, records: TruthRecord[], k: AdversaryKnowledge, meta: RowMeta): ScoredRow {
  const all = records.filter((r) => r.status === 'completed');
  const completed = all.filter((r) => r.scored);
  // The adversary attacks everything the stream put on the chain; only the scored orders are counted.
  const obs = thin(view, all);
  const results = attack(obs, k, meta.random, meta.draws ?? DRAWS);
  const bySignature = new Map(all.map((r) => [r.depositSignature, r]));
  const scoredRow = obs.deposits.map((d) => bySignature.get(d.signature)!.scored);
  const truth = obs.deposits.map((d) => {
    const r = bySignature.get(d.signature)!;
    return obs.payouts.findIndex((p) => p.recipient === r.recipient && p.assetId === r.plan.destinationAssetId);
  });
  const n = Math.max(1, completed.length);
  const hits = (res: AdversaryResult, t: number[]) => t.reduce((a, j, i) => a + (scoredRow[i] && j >= 0 && res.guess[i] === j ? 1 : 0), 0);
  const scoredOnly = <T>(xs: ArrayLike<T>): T[] => Array.from(xs).filter((_, i) => scoredRow[i]);
  // Per scored order (a completed order the adversary did not find is a miss), each draw's hit.
  const depositOf = new Map(obs.deposits.map((d, i) => [d.signature, i]));
  const clusters = completed.map((r) => (r.quoted?.standard ? classOf(r) : r.trackingId));
  const estimate = (res: AdversaryResult) =>
    linkedEstimate(
      res.guesses.map((g) =>
        completed.map((r) => {
          const i = depositOf.get(r.depositSignature);
          return i !== undefined && truth[i]! >= 0 && g[i] === truth[i];
        }),
      ),
      clusters,
    );
  const estimates = Object.fromEntries(ADVERSARIES.map((id) => [id, estimate(results[id])])) as Record<AdversaryId, ReturnType<typeof linkedEstimate>>;
  const accuracy = Object.fromEntries(ADVERSARIES.map((id) => [id, estimates[id].share])) as Record<AdversaryId, number>;
  const median = (id: AdversaryId) => quantile(scoredOnly(results[id].sets), 0.5);
  const best = [...ADVERSARIES].sort((a, b) => accuracy[b] - accuracy[a] || median(a) - median(b))[0]!;
  const res = results[best];
  let shuffled = 0;
  for (let s = 0; s < 20; s++) {
    const t = [...truth];
    for (let i = t.length - 1; i > 0; i--) {
      const r = Math.floor(meta.random() * (i + 1));
      [t[i], t[r]] = [t[r]!, t[i]!];
    }
    shuffled += hits(res, t) / 20;
  }
  const delays = completed.flatMap((r) => (r.delayMs === null ? [] : [(r.delayMs * meta.compression) / 1000]));
  // Quotes made once Hush had watched its classes for a budget (it measures none before a hold): a class's steady rate.
  const quoted = all.filter((r) => r.quoted && r.plan.atMs >= (meta.quotesFromMs ?? 0)).map((r) => r.quoted!.anonymitySet);
  const scoredObserved = Math.min(scoredRow.filter(Boolean).length, completed.filter((r) => obs.payouts.some((p) => p.recipient === r.recipient)).length);
  return {
    row: meta.row,
    label: meta.label,
    rate: meta.rate,
    lambdaD: meta.rate * quantile(delays, 0.5),
    orders: meta.planned,
    completed: completed.length,
    observed: scoredObserved / n,
    accuracy,
    a1Links: scoredOnly(results.A1.guess).filter((j) => j >= 0).length,
    a1Correct: hits(results.A1, truth),
    best,
    linked: accuracy[best],
    linkedSE: estimates[best].standardError,
    confidentLinks: truth.reduce((a, j, i) => a + (scoredRow[i] && j >= 0 && res.guess[i] === j && res.confidence[i]! >= 0.9 ? 1 : 0), 0) / n,
    setP10: quantile(scoredOnly(res.sets), 0.1),
    setMedian: median(best),
    delayP50S: quantile(delays, 0.5),
    delayP95S: quantile(delays, 0.95),
    costLamports: costPerOrder(view, obs, Math.max(1, all.length)),
    shuffledHits: shuffled,
    quotedSetMedian: quoted.length > 0 ? quantile(quoted, 0.5) : NaN,
    quotedLikelyMedian: quoted.length > 0 ? quantile(all.filter((r) => r.quoted && r.plan.atMs >= (meta.quotesFromMs ?? 0)).map((r) => r.quoted!.anonymitySetLikely ?? r.quoted!.anonymitySet), 0.5) : NaN,
    promise: {
      ...promiseKept(completed),
      byTag: Object.fromEntries([...new Set(completed.map((r) => r.plan.tag).filter((t): t is string => t !== undefined))].map((t) => [t, promiseKept(completed.filter((r) => r.plan.tag === t))])),
    },
    releasedMedian: quantile(completed.filter((r) => r.quoted?.standard && r.releasedWith != null).map((r) => r.releasedWith!), 0.5),
    releasedWithLate: completed.filter((r) => r.quoted?.standard && r.releasedWithWithCompleted === false).length,
    releasedWithExplained: completed.filter((r) => r.quoted?.standard && r.releasedWithWithCompleted === false && r.releasedWithPendingAtCompleted).length,
    releasedWithMissing: completed.filter((r) => r.quoted?.standard && r.releasedWith == null).length,
    padding: all.length - completed.length,
    releaseGuess: completed.reduce((a, r) => a + 1 / Math.max(1, r.releasedWith ?? 1), 0) / n,
    ...(meta.targetSet !== undefined ? { releaseBands: releaseSizeBands(completed.map((r) => r.releasedWith ?? 1), meta.targetSet) } : {}),
    releasedWithMismatches: meta.bursts
      ? completed.filter((r) => r.quoted?.standard && meta.bursts!.get(r.trackingId) !== r.releasedWith).map((r) => `${r.trackingId}: status ${r.releasedWith}, chain ${meta.bursts!.get(r.trackingId) ?? 'not found'}`)
      : [],
    releasedChecked: meta.bursts ? completed.filter((r) => r.quoted?.standard).length : 0,
    results,
  };
}
