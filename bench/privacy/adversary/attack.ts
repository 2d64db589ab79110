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
   * The guess under each of the draws' tie-breaks (A1: its one certain answer). Where the likelihoods tie,
   * which payout the adversary names is a coin it flips, not something Hush leaks: scoring one flip makes a
   * row's linked share swing by about a link per release, so the score averages over the flips.
   */
  guesses: Int32Array[];
  /** Per deposit, 2^H of its posterior over payouts. */
  sets: number[];
  /** Per deposit, the posterior probability of its guess. */
  confidence: number[];
}

export const ADVERSARIES: readonly AdversaryId[] = ['A1', 'A2', 'A3', 'A4', 'A5'];

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

/** `draws`: how many tie-breaks each adversary but A1 (which has no ties) guesses under. */
export function attack(obs: Observation, k: AdversaryKnowledge, random: () => number = Math.random, draws = 1): Record<AdversaryId, AdversaryResult> {
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`draws must be a positive integer, got ${draws}`);
  const { links, matrices } = adversaryMatrices(obs, k);
  const out = {} as Record<AdversaryId, AdversaryResult>;
  for (const id of ADVERSARIES) {
    const m = matrices[id];
    const posterior = sinkhorn(m);
    const guesses =
      id === 'A1' ? [Int32Array.from({ length: m.rows }, (_, i) => links.get(i) ?? -1)] : Array.from({ length: draws }, () => assignShuffled(m, random));
    const guess = guesses[0]!;
    out[id] = {
      guess,
      guesses,
      sets: effectiveSets(posterior),
      confidence: Array.from(guess, (j, i) => (j < 0 ? 0 : posterior.data[i * m.cols + j]!)),
    };
  }
  return out;
}
