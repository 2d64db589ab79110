/**
 * Posteriors from a likelihood matrix when every deposit has exactly one payout and every payout one
 * deposit: Sinkhorn–Knopp scaling to a doubly stochastic matrix, the standard approximation of the
 * permanent-based posterior of a one-to-one assignment. A rectangular matrix is padded with uniform
 * slack rows or columns (payouts or deposits outside the observed window).
 */
import { matrix, type Matrix } from './matching.ts';

/** Keeps every pair possible, so a model that is wrong about one pair cannot make the truth impossible. */
const FLOOR = 1e-12;

export function sinkhorn(m: Matrix, iterations = 1000, tolerance = 1e-9): Matrix {
  const n = Math.max(m.rows, m.cols);
  if (n === 0) return matrix(m.rows, m.cols);
  let maxL = 0;
  for (const x of m.data) if (x > maxL) maxL = x;
  // Scaled to a maximum of one first: likelihoods can be far below any fixed floor (even subnormal).
  const k = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i < m.rows && j < m.cols) k[i * n + j] = (maxL > 0 ? m.data[i * m.cols + j]! / maxL : 1) + FLOOR;
      else k[i * n + j] = 1 / n; // slack: uninformative
    }
  }
  const colSum = new Float64Array(n);
  for (let it = 0; it < iterations; it++) {
    let worst = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += k[i * n + j]!;
      for (let j = 0; j < n; j++) k[i * n + j]! /= s;
    }
    colSum.fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) colSum[j] = colSum[j]! + k[i * n + j]!;
    for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(colSum[j]! - 1));
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) k[i * n + j]! /= colSum[j]!;
    if (worst < tolerance) break;
  }
  // Rows of the observed deposits, renormalised over the observed payouts: each is a distribution.
  const out = matrix(m.rows, m.cols);
  for (let i = 0; i < m.rows; i++) {
    let s = 0;
    for (let j = 0; j < m.cols; j++) s += k[i * n + j]!;
    for (let j = 0; j < m.cols; j++) out.data[i * m.cols + j] = s > 0 ? k[i * n + j]! / s : 1 / m.cols;
  }
  return out;
}

/** Effective anonymity set of each row: 2^H, H the Shannon entropy in bits of the row's distribution. */
export function effectiveSets(posterior: Matrix): number[] {
  const out: number[] = [];
  for (let i = 0; i < posterior.rows; i++) {
    let h = 0;
    for (let j = 0; j < posterior.cols; j++) {
      const p = posterior.data[i * posterior.cols + j]!;
      if (p > 0) h -= p * Math.log2(p);
    }
    out.push(2 ** h);
  }
  return out;
}
