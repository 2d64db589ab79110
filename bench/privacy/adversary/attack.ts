/**
 * Runs every adversary on one observation: its best guess for each deposit (maximum-likelihood one-to-one
 * assignment; A1 only where it is certain) and its posterior, summarised as each deposit's effective
 * anonymity set.
 */
import { maxLikelihoodAssignment, type Matrix } from './matching.ts';
import { adversaryMatrices, type AdversaryId, type AdversaryKnowledge } from './models.ts';
import type { Observation } from './observation.ts';
import { effectiveSets, sinkhorn } from './sinkhorn.ts';

export interface AdversaryResult {
  /** Per deposit, the payout index it guesses (−1: no guess): the first of `guesses`. */
  guess: Int32Array;
  /**
   * The guess under each of the draws' tie-breaks (one for A1, A3 and A5: TIE_DRAWN). Where the likelihoods tie,
   * which payout the adversary names is a coin it flips, not something Hush leaks: scoring one flip makes a
   * row's linked share swing by about a link per release, so the score averages over the flips.
   */
  guesses: Int32Array[];
  /** Per deposit, 2^H of its posterior over payouts. */
  sets: number[];
  /** Per deposit, the posterior probability of its guess. */
  confidence: number[];
}

export const ADVERSARIES: readonly AdversaryId[] = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'];

/**
 * The assignment with ties broken at random: the Hungarian algorithm otherwise prefers low indices, and
 * payouts listed in time order would hand a uniform adversary a FIFO guess it did not earn.
 */
function assignShuffled(m: Matrix, random: () => number): Int32Array {
  const perm = Array.from({ length: m.cols }, (_, j) => j);
  for (let j = perm.length - 1; j > 0; j--) {
    const r = Math.floor(random() * (j + 1));
    [perm[j], perm[r]] = [perm[r]!, perm[j]!];
  }
  const shuffled = { rows: m.rows, cols: m.cols, data: new Float64Array(m.data.length) };
  for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) shuffled.data[i * m.cols + j] = m.data[i * m.cols + perm[j]!]!;
  return maxLikelihoodAssignment(shuffled).map((j) => (j < 0 ? -1 : perm[j]!));
}

/**
 * The adversaries whose guesses are drawn under several tie-breaks: those that read amounts, whose
 * matrices split by class, so that a solve is one class's (tens of ms). A3 and A5 read no amounts: a
 * component of theirs is a whole asset's traffic (1,500 orders at λ = 1, seconds a solve), and where ties
 * matter (a release of a standard class) they link 0–2 %, far from the best; they guess once, and so does
 * A1, which has no ties.
 */
export const TIE_DRAWN: readonly AdversaryId[] = ['A2', 'A4', 'A6'];

/** `draws`: how many tie-breaks each adversary of TIE_DRAWN guesses under. */
export function attack(obs: Observation, k: AdversaryKnowledge, random: () => number = Math.random, draws = 1): Record<AdversaryId, AdversaryResult> {
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`draws must be a positive integer, got ${draws}`);
  const { links, matrices } = adversaryMatrices(obs, k);
  const out = {} as Record<AdversaryId, AdversaryResult>;
  const solved = new Map<Matrix, AdversaryResult>();
  for (const id of ADVERSARIES) {
    const m = matrices[id];
    // Two adversaries with one matrix (A6 where no ceiling is published) guess alike: solved once.
    const same = solved.get(m);
    if (same) {
      out[id] = same;
      continue;
    }
    const posterior = sinkhorn(m);
    const guesses =
      id === 'A1' ? [Int32Array.from({ length: m.rows }, (_, i) => links.get(i) ?? -1)] : Array.from({ length: TIE_DRAWN.includes(id) ? draws : 1 }, () => assignShuffled(m, random));
    const guess = guesses[0]!;
    out[id] = {
      guess,
      guesses,
      sets: effectiveSets(posterior),
      confidence: Array.from(guess, (j, i) => (j < 0 ? 0 : posterior.data[i * m.cols + j]!)),
    };
    solved.set(m, out[id]);
  }
  return out;
}
