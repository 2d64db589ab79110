/**
 * The class-release structure (docs/spec.md §9) as the adversary exploits it: payouts of one class leave in
 * bursts, each a release of every deposit of the class then waiting, spread over the published window.
 * So a payout's deposit was confirmed before its burst's release and after the class's previous release
 * (which took every deposit waiting then), and not more than the cap before it. Within a burst the
 * release is shuffled: every candidate is as likely as another, which is what the model gives them.
 */
import { at, matrix, type Matrix } from './matching.ts';
import type { AdversaryKnowledge } from './knowledge.ts';
import type { Observation, ObservedDeposit, ObservedPayout } from './observation.ts';
import { timingLikelihood } from './timing-model.ts';

/**
 * How a pair can be standard (docs/spec.md §9's pinned amount is a denomination): under exact_in the deposit is
 * the pinned amount; under exact_out (same asset only) the payout is. null: the pair is not standard.
 */
export function standardClass(k: Pick<AdversaryKnowledge, 'denominations'>, d: ObservedDeposit, p: ObservedPayout): string | null {
  const denominations = k.denominations;
  if (!denominations) return null;
  if (d.assetId === p.assetId && denominations.get(p.assetId)?.has(p.amount)) return `out:${p.assetId}:${p.amount}`;
  if (denominations.get(d.assetId)?.has(d.amount)) return `in:${d.assetId}:${d.amount}>${p.assetId}`;
  return null;
}

/** Share of the mass kept on the plain feasible-range density: a burst split wrongly never makes the truth impossible. */
const BROAD = 0.02;

interface Burst {
  payouts: number[];
  /** Bounds of the release moment, seconds on the adversary's clock (slot × slot time). */
  releaseLo: number;
  releaseHi: number;
}

/**
 * Splits one class's payouts (time order) into releases: apart where a gap exceeds one release's spread
 * (window plus Hush's jitter), and a run longer than that spread at its largest gap until none is.
 */
function bursts(times: number[], idx: number[], spanS: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  for (const j of idx) {
    if (cur.length > 0 && times[j]! - times[cur[cur.length - 1]!]! > spanS) {
      out.push(cur);
      cur = [];
    }
    cur.push(j);
  }
  if (cur.length > 0) out.push(cur);
  const split = (b: number[]): number[][] => {
    if (b.length < 2 || times[b[b.length - 1]!]! - times[b[0]!]! <= spanS) return [b];
    let cut = 1;
    for (let x = 2; x < b.length; x++) if (times[b[x]!]! - times[b[x - 1]!]! > times[b[cut]!]! - times[b[cut - 1]!]!) cut = x;
    return [...split(b.slice(0, cut)), ...split(b.slice(cut))];
  };
  return out.flatMap(split);
}

/**
 * A6's weight for a deposit that may still be waiting at a release other than the one where its ceiling
 * runs out (weight 1 there): a member held for a set goes at the latest then, and an earlier release takes
 * it only if the set it asked for was reached or was out of reach, which the adversary cannot see. Not
 * fitted to any run.
 */
const WAITING = 0.25;

/**
 * Timing likelihood of each (deposit, payout) pair under class release, given `amounts` (A2's matrix,
 * which says which deposits a payout's class can hold). Pairs that are not standard, or a policy without
 * class release, get the plain feasible-range density.
 *
 * `patience` (A6): members may have asked to wait for a set (the published ceiling bounds them), so a
 * release need not take every deposit then waiting, and a deposit the class's previous release passed over
 * may still be waiting. Such a deposit is a candidate of every release until its ceiling, and the release
 * when its ceiling runs out is the likeliest.
 */
export function releaseTiming(obs: Observation, k: AdversaryKnowledge, amounts: Matrix, patience = false): Matrix {
  const { deposits, payouts } = obs;
  const m = matrix(deposits.length, payouts.length);
  const c = k.policy.classRelease;
  const t = (slot: number) => slot * k.slotS;
  const plain = (i: number, j: number, standard: boolean) => timingLikelihood(t(payouts[j]!.slot - deposits[i]!.slot), k.policy, k.latency, standard);
  const classes = payouts.map((p, j) => {
    const keys = new Set<string>();
    deposits.forEach((d, i) => {
      if (at(amounts, i, j) > 0) {
        const key = standardClass(k, d, p);
        if (key) keys.add(key);
      }
    });
    return [...keys].sort().join('|');
  });
  for (let i = 0; i < deposits.length; i++) for (let j = 0; j < payouts.length; j++) if (at(amounts, i, j) > 0) m.data[i * m.cols + j] = plain(i, j, classes[j] !== '' && standardClass(k, deposits[i]!, payouts[j]!) !== null);
  if (!c) return m;

  const { min, max } = k.policy.delayWindowS;
  const ceiling = c.ceilingS ?? c.maxDelayS;
  const lag = k.latency.mu + 2 * k.latency.sigma; // deposit→confirmation plus due→payout: at most this
  const spanS = max - min + 4 * k.latency.sigma + 2 * k.slotS;
  const times = payouts.map((p) => t(p.slot));
  const groups = new Map<string, number[]>();
  classes.forEach((key, j) => key && groups.set(key, [...(groups.get(key) ?? []), j]));
  for (const members of groups.values()) {
    members.sort((a, b) => times[a]! - times[b]!);
    const list: Burst[] = bursts(times, members, spanS).map((b) => ({
      payouts: b,
      releaseLo: times[b[b.length - 1]!]! - max - lag,
      releaseHi: times[b[0]!]! - min,
    }));
    // P(a deposit at time x was confirmed before the release): 1 surely before, 0 surely after.
    const before = (b: Burst, x: number) => {
      const sure = b.releaseLo - lag;
      const never = Math.max(b.releaseHi, sure) + k.slotS;
      return x <= sure ? 1 : x >= never ? 0 : (never - x) / (never - sure);
    };
    // A deposit held for a set: waiting at this release and not past its ceiling; due when its ceiling ends
    // within the release's bounds (less the hold's two passes, within the pipeline's lag).
    const patient = (b: Burst, x: number) => {
      const waiting = before(b, x) * (x + ceiling + lag + 1 >= b.releaseLo ? 1 : 0);
      const due = x + ceiling >= b.releaseLo - lag - k.slotS && x + ceiling - 2 - lag <= b.releaseHi + k.slotS;
      return waiting * (due ? 1 : WAITING);
    };
    list.forEach((b, n) => {
      const prev = n > 0 ? list[n - 1]! : null;
      const density = 1 / (max - min + 2 * k.latency.sigma + k.slotS);
      for (let i = 0; i < deposits.length; i++) {
        const x = t(deposits[i]!.slot);
        // Waiting at this release, not taken by the class's previous one, and not past its cap before it.
        const fresh = before(b, x) * (prev ? 1 - before(prev, x) : 1) * (x + c.maxDelayS + lag + 1 >= b.releaseLo ? 1 : 0);
        const w = patience && ceiling > c.maxDelayS ? Math.max(fresh, patient(b, x)) : fresh;
        for (const j of b.payouts) {
          if (!(at(amounts, i, j) > 0) || standardClass(k, deposits[i]!, payouts[j]!) === null) continue;
          m.data[i * m.cols + j] = (1 - BROAD) * w * density + BROAD * m.data[i * m.cols + j]!;
        }
      }
    });
  }
  return m;
}
