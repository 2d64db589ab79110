/**
 * A row's linked share as the best adversary's expected success, with one standard error.
 *
 * Where an adversary's likelihoods tie (a release of n is n equal candidates), which deposit it names is a
 * coin it flips. Scored on one flip, a release of 30 gives 0, 1 or 2 links by chance (about a link per
 * release, Poisson), so a row of 450 orders in 15 releases swung by a standard error of about a point from
 * run to run, more than the targets' margins. Averaged over the adversary's draws the share is its
 * expected success on this traffic, which is what Hush can be held to; what is left uncertain is the
 * traffic itself (which classes the orders fell in, how the releases formed) and the finite draws.
 */

export interface LinkedEstimate {
  /** Mean over the draws of the share of scored orders guessed right. */
  share: number;
  /** One standard error of `share`, clustered by class: the traffic's and what the finite draws leave of the flips. */
  standardError: number;
}

/**
 * `hits[d][i]`: whether draw d guessed scored order i right; `cluster[i]`: the order's class (asset pair,
 * mode and pinned amount, or the order itself off the menu). Orders of one class are not independent (they
 * share releases), so the traffic's part of the error is the cluster-robust one over classes: a class of
 * many orders counts as one draw of the traffic, never as many.
 */
export function linkedEstimate(hits: readonly (readonly boolean[])[], cluster: readonly string[]): LinkedEstimate {
  const draws = hits.length;
  const n = cluster.length;
  if (draws === 0 || n === 0) return { share: 0, standardError: 0 };
  const perOrder = cluster.map((_, i) => hits.reduce((a, h) => a + (h[i] ? 1 : 0), 0) / draws);
  const share = perOrder.reduce((a, p) => a + p, 0) / n;
  const residual = new Map<string, number>();
  perOrder.forEach((p, i) => residual.set(cluster[i]!, (residual.get(cluster[i]!) ?? 0) + p - share));
  const clusters = residual.size;
  // The usual small-sample factor G/(G−1); a single cluster says nothing about the traffic's spread.
  const traffic = clusters > 1 ? ([...residual.values()].reduce((a, r) => a + r * r, 0) * clusters) / (clusters - 1) / (n * n) : (share * (1 - share)) / n;
  // The residuals are of the per-order averages, so the flips the draws did not average away are in them.
  return { share, standardError: Math.sqrt(traffic) };
}
