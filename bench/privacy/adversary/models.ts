/**
 * The six adversaries as likelihood matrices over (deposit, payout) pairs. Each sees only an Observation
 * (the chain), the fee schedule (the public quote API) and the release policy (Hush's published
 * configuration); none sees the bench's ground truth.
 */
import { amountLikelihood, type AmountSchedule } from './amount-model.ts';
import { matrix, type Matrix } from './matching.ts';
import type { Observation, ObservedDeposit, ObservedPayout } from './observation.ts';
import { releaseTiming, standardClass } from './release-model.ts';
import { plausibleDelay, timingLikelihood } from './timing-model.ts';
import type { AdversaryKnowledge } from './knowledge.ts';

export type AdversaryId = 'A1' | 'A2' | 'A3' | 'A4' | 'A5' | 'A6';

export type { AdversaryKnowledge } from './knowledge.ts';

/** A5: which payouts a deposit can have paid at all — the asset pair Hush supports, and causality. */
export function compatible(s: AmountSchedule, d: ObservedDeposit, p: ObservedPayout): boolean {
  if (p.slot < d.slot) return false;
  if (d.assetId === p.assetId) return true;
  return s.swappable(d.assetId) && s.swappable(p.assetId);
}

/**
 * A1: links that need no statistics. An account both transactions name that is not common to all of
 * them (the sender paid to itself, a reused account); a blockhash only the two share; when the policy
 * allows no wait, a payout in the deposit's slot or the next where that pair is the only one either way.
 */
export function deterministicLinks(obs: Observation, k: AdversaryKnowledge): Map<number, number> {
  const links = new Map<number, number>();
  // A tell counts only for a pair whose delay the policy allows: a blockhash is shared by everything Hush
  // signed in the same moment, so a payout and another order's deposit made then share one too.
  const allowed = (d: ObservedDeposit, p: ObservedPayout) => plausibleDelay((p.slot - d.slot) * k.slotS, k.policy, k.latency, standardClass(k, d, p) !== null);
  const claim = (i: number, j: number) => {
    if (!links.has(i) && ![...links.values()].includes(j) && allowed(obs.deposits[i]!, obs.payouts[j]!)) links.set(i, j);
  };
  const ownersOf = new Map<string, number[]>();
  obs.payouts.forEach((p, j) => {
    for (const a of new Set([...p.accounts, p.recipient])) {
      if (k.commonAccounts.has(a)) continue;
      ownersOf.set(a, [...(ownersOf.get(a) ?? []), j]);
    }
  });
  obs.deposits.forEach((d, i) => {
    const hits = new Set<number>();
    for (const a of new Set([...d.accounts, d.sender])) for (const j of ownersOf.get(a) ?? []) if (compatible(k.schedule, d, obs.payouts[j]!)) hits.add(j);
    if (hits.size === 1) claim(i, [...hits][0]!);
  });
  const byHash = new Map<string, { d: number[]; p: number[] }>();
  const entry = (h: string) => byHash.get(h) ?? byHash.set(h, { d: [], p: [] }).get(h)!;
  obs.deposits.forEach((d, i) => entry(d.blockhash).d.push(i));
  obs.payouts.forEach((p, j) => new Set(p.blockhashes).forEach((h) => entry(h).p.push(j)));
  for (const { d, p } of byHash.values()) if (d.length === 1 && p.length === 1) claim(d[0]!, p[0]!);
  // A payout a slot after a deposit is that deposit's only when the policy allows no wait at all: under
  // a published minimum of two slots (class release) no true pair is that close, and the tell could only
  // claim false links.
  if ((k.policy.classRelease?.minGapS ?? k.policy.delayWindowS.min) >= 2 * k.slotS * (1 - 1e-9)) return links;
  obs.deposits.forEach((d, i) => {
    const near = obs.payouts.flatMap((p, j) => (p.slot - d.slot <= 1 && compatible(k.schedule, d, p) ? [j] : []));
    if (near.length !== 1) return;
    const p = obs.payouts[near[0]!]!;
    const rivals = obs.deposits.filter((e) => p.slot - e.slot <= 1 && compatible(k.schedule, e, p));
    if (rivals.length === 1) claim(i, near[0]!);
  });
  return links;
}

function build(obs: Observation, f: (d: ObservedDeposit, p: ObservedPayout) => number): Matrix {
  const m = matrix(obs.deposits.length, obs.payouts.length);
  obs.deposits.forEach((d, i) => obs.payouts.forEach((p, j) => (m.data[i * m.cols + j] = f(d, p))));
  return m;
}

/** Pins each deterministic link: its row and column have no other possibility. */
export function pinLinks(m: Matrix, links: Map<number, number>): Matrix {
  const out = { ...m, data: Float64Array.from(m.data) };
  for (const [i, j] of links) {
    for (let c = 0; c < m.cols; c++) out.data[i * m.cols + c] = 0;
    for (let r = 0; r < m.rows; r++) out.data[r * m.cols + j] = 0;
    out.data[i * m.cols + j] = 1;
  }
  return out;
}

function times(a: Matrix, b: Matrix): Matrix {
  const out = matrix(a.rows, a.cols);
  for (let x = 0; x < out.data.length; x++) out.data[x] = a.data[x]! * b.data[x]!;
  return out;
}

export interface AdversaryMatrices {
  links: Map<number, number>;
  matrices: Record<AdversaryId, Matrix>;
}

export function adversaryMatrices(obs: Observation, k: AdversaryKnowledge): AdversaryMatrices {
  const links = deterministicLinks(obs, k);
  const compat = build(obs, (d, p) => (compatible(k.schedule, d, p) ? 1 : 0));
  const amounts = build(obs, (d, p) => (compatible(k.schedule, d, p) ? amountLikelihood(k.schedule, d, p) : 0));
  // A3: the delay each pair's kind allows under the published policy (standard: two slots to cap + window).
  const timing = build(obs, (d, p) => (compatible(k.schedule, d, p) ? timingLikelihood((p.slot - d.slot) * k.slotS, k.policy, k.latency, standardClass(k, d, p) !== null) : 0));
  // A4: amounts, and timing under the release structure the amounts reveal (bursts per class).
  const released = releaseTiming(obs, k, amounts);
  const joint = times(amounts, released);
  // A6: the same, knowing that a member may wait for a set up to the published ceiling (when it is longer
  // than the budget): the release at a deposit's ceiling is its likeliest, and any before may take it.
  const ceiling = k.policy.classRelease?.ceilingS;
  const patient = ceiling !== undefined && ceiling > k.policy.classRelease!.maxDelayS ? times(amounts, releaseTiming(obs, k, amounts, true)) : joint;
  return {
    links,
    // A4 does not pin A1's links: a tell that misfires (a blockhash shared by coincidence) would cost it
    // pairs the amounts and timing had right; A1 stands as its own adversary instead.
    matrices: { A1: pinLinks(compat, links), A2: amounts, A3: timing, A4: joint, A5: compat, A6: patient },
  };
}
