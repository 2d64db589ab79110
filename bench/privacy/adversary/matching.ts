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

const possible = (l: number) => l > 0 && -Math.log(l) < IMPOSSIBLE;

/**
 * For each row the column it is assigned (each column at most once), maximising the product of the
 * likelihoods; −1 where there are more rows than columns.
 *
 * Solved per connected component of the possible pairs: a pair across components costs IMPOSSIBLE, the
 * same as leaving a row unmatched, so the whole matrix's optimum is the components' optima side by side,
 * and the rows they leave take the free columns in any order (at IMPOSSIBLE each, as in the whole
 * matrix). Standard classes make the matrices nearly block-diagonal: at λ = 1 a row of 1,500 orders went
 * from one O(n³) solve to a few of a few hundred.
 */
export function maxLikelihoodAssignment(m: Matrix): Int32Array {
  const out = new Int32Array(m.rows).fill(-1);
  const taken = new Uint8Array(m.cols);
  for (const c of components(m)) {
    const sub = matrix(c.rows.length, c.cols.length);
    c.rows.forEach((i, a) => c.cols.forEach((j, b) => (sub.data[a * sub.cols + b] = m.data[i * m.cols + j]!)));
    denseAssignment(sub).forEach((b, a) => {
      if (b < 0 || !possible(sub.data[a * sub.cols + b]!)) return;
      out[c.rows[a]!] = c.cols[b]!;
      taken[c.cols[b]!] = 1;
    });
  }
  let free = 0;
  for (let i = 0; i < m.rows; i++) {
    if (out[i]! >= 0) continue;
    while (free < m.cols && taken[free]) free++;
    if (free === m.cols) break;
    out[i] = free;
    taken[free] = 1;
  }
  return out;
}

/** Rows and columns joined by possible pairs (union–find over rows 0…rows−1 and columns rows…). */
function components(m: Matrix): { rows: number[]; cols: number[] }[] {
  const parent = Int32Array.from({ length: m.rows + m.cols }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  for (let i = 0; i < m.rows; i++) {
    for (let j = 0; j < m.cols; j++) {
      if (!possible(m.data[i * m.cols + j]!)) continue;
      const a = find(i);
      const b = find(m.rows + j);
      if (a !== b) parent[a] = b;
    }
  }
  const byRoot = new Map<number, { rows: number[]; cols: number[] }>();
  const of = (x: number) => {
    const r = find(x);
    if (!byRoot.has(r)) byRoot.set(r, { rows: [], cols: [] });
    return byRoot.get(r)!;
  };
  for (let i = 0; i < m.rows; i++) of(i).rows.push(i);
  for (let j = 0; j < m.cols; j++) of(m.rows + j).cols.push(j);
  return [...byRoot.values()].filter((c) => c.rows.length > 0 && c.cols.length > 0);
}

/** The Hungarian algorithm on the whole of `m` (rows padded with IMPOSSIBLE columns when they outnumber them). */
function denseAssignment(m: Matrix): Int32Array {
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
