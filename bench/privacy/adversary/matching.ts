/**
 * Maximum-likelihood assignment of deposits to payouts: the Hungarian algorithm (shortest augmenting
 * paths with potentials, O(n²·m)) on costs −log(likelihood). Written here because the npm packages that
 * do this are either untyped and unmaintained or O(n⁴) Munkres; 600 × 600 must take about a second.
 */

/** A likelihood matrix, row-major: rows are deposits, columns payouts. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

export function matrix(rows: number, cols: number, fill = 0): Matrix {
  return { rows, cols, data: new Float64Array(rows * cols).fill(fill) };
}

export const at = (m: Matrix, i: number, j: number): number => m.data[i * m.cols + j]!;

/** A cost that no real likelihood reaches: an impossible pair is still assignable, just never preferred. */
const IMPOSSIBLE = 700;

/**
 * For each row the column it is assigned (each column at most once), maximising the product of the
 * likelihoods; −1 where there are more rows than columns.
 */
export function maxLikelihoodAssignment(m: Matrix): Int32Array {
  const n = m.rows;
  const cols = Math.max(m.cols, n); // padding columns cost IMPOSSIBLE, so a row may be left unmatched
  const cost = (i: number, j: number) => {
    if (j >= m.cols) return IMPOSSIBLE;
    const l = m.data[i * m.cols + j]!;
    return l > 0 ? Math.min(-Math.log(l), IMPOSSIBLE) : IMPOSSIBLE;
  };
  // 1-based arrays as in the classical formulation: p[j] = row matched to column j, 0 = none.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(cols + 1);
  const p = new Int32Array(cols + 1);
  const way = new Int32Array(cols + 1);
  const minv = new Float64Array(cols + 1);
  const used = new Uint8Array(cols + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) {
          const r = p[j]!;
          u[r] = u[r]! + delta;
          v[j] = v[j]! - delta;
        } else minv[j] = minv[j]! - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Int32Array(n).fill(-1);
  for (let j = 1; j <= cols; j++) if (p[j]! > 0 && j <= m.cols) out[p[j]! - 1] = j - 1;
  return out;
}
