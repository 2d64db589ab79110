/**
 * A3's knowledge: the published release policy (read from Hush's configuration by the bench, never from
 * its store) and the pipeline latency the adversary measured on its own transfers. A payout's delay after
 * its deposit is the policy's wait plus that latency; the density of the sum is the likelihood.
 */

/** What Hush publishes about when a payout is released (docs/spec.md §9, docs/configuration.md). */
export interface ReleasePolicy {
  /**
   * HUSH_PAYOUT_DELAY_S, seconds: with privacy off every payout's uniform wait; with class release on,
   * the window a release spreads its payouts over (each at release + Uniform[min, max]).
   */
  delayWindowS: { min: number; max: number };
  /**
   * Class release (HUSH_PRIVACY=on, docs/spec.md §9): a standard payout waits until its class reaches
   * the target set, or goes earlier when its traffic is too thin to, and at the latest `maxDelayS` (the
   * budget less the window) after the class's oldest deposit, then within the window; a non-standard one
   * waits only `minGapS` (two slots). Unset with privacy off.
   */
  classRelease?: {
    targetSet: number;
    maxDelayS: number;
    minGapS: number;
    /**
     * HUSH_PRIVACY_MAX_WAIT_S less the window: the longest a member that asked to wait is held. A class
     * whose members wait for a set it does not reach goes when the oldest one's ceiling runs out
     * (docs/spec.md §9). Absent: nobody is held past `maxDelayS`.
     */
    ceilingS?: number;
  };
}

/** Deposit-confirmed-to-payout latency outside the policy's wait, seconds: Normal(mu, sigma). */
export interface PipelineLatency {
  mu: number;
  sigma: number;
}

const SQRT2 = Math.SQRT2;

/** Abramowitz–Stegun 7.1.26 (error ≤ 1.5e-7): enough for a likelihood, and no dependency for one function. */
function erf(x: number): number {
  const s = Math.sign(x);
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return s * y;
}

const phi = (z: number) => 0.5 * (1 + erf(z / SQRT2));

/**
 * Calibrates the latency from the adversary's own transfers, whose delays it knows: their mean minus the
 * window's mean, their variance minus the window's (W²/12). Never tighter than `floorS` (one slot).
 */
export function calibrate(ownDelaysS: number[], policy: ReleasePolicy, floorS: number): PipelineLatency {
  // The adversary's own transfers are non-standard amounts: under class release they wait the fixed gap.
  const { min, max } = policy.classRelease ? { min: policy.classRelease.minGapS, max: policy.classRelease.minGapS } : policy.delayWindowS;
  if (ownDelaysS.length === 0) return { mu: floorS, sigma: Math.max(floorS, 1) };
  const mean = ownDelaysS.reduce((a, b) => a + b, 0) / ownDelaysS.length;
  const variance = ownDelaysS.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, ownDelaysS.length - 1);
  const w = max - min;
  const mu = Math.max(0, mean - (min + max) / 2);
  const sigma = Math.sqrt(Math.max(floorS * floorS, variance - (w * w) / 12));
  return { mu, sigma: Math.max(sigma, floorS) };
}

/**
 * The waits the policy allows a payout: with class release, a standard one (its pinned amount a
 * denomination) from two slots (a class that filled at once) to the cap plus the window, a non-standard
 * one the two slots only; without it, the uniform window. `standard` undefined: either kind.
 */
export function waitBounds(policy: ReleasePolicy, standard?: boolean): { min: number; max: number } {
  const c = policy.classRelease;
  if (!c) return policy.delayWindowS;
  if (standard === false) return { min: c.minGapS, max: c.minGapS };
  return { min: c.minGapS, max: c.maxDelayS + policy.delayWindowS.max };
}

/** A delay the policy and the measured latency allow (within three standard deviations). */
export function plausibleDelay(deltaS: number, policy: ReleasePolicy, lat: PipelineLatency, standard?: boolean): boolean {
  const { min, max } = waitBounds(policy, standard);
  return deltaS >= min + lat.mu - 3 * lat.sigma && deltaS <= max + lat.mu + 3 * lat.sigma;
}

/** Share of the density kept for outliers (a stalled payout, a retry): no true pair is ever impossible. */
const OUTLIER = 0.02;

/**
 * Density of a delay of `deltaS` ≥ 0 seconds: Uniform[min, max] ⊛ Normal(mu, sigma), mixed with a little
 * uniform density over the whole plausible span so that one slow payout does not make its truth unlikely
 * beyond any other pair.
 */
export function timingLikelihood(deltaS: number, policy: ReleasePolicy, lat: PipelineLatency, standard?: boolean): number {
  const { min, max } = waitBounds(policy, standard);
  const x = deltaS - lat.mu;
  const span = max + lat.mu + 6 * lat.sigma;
  let f: number;
  if (max - min < 1e-9) {
    const z = (x - min) / lat.sigma;
    f = Math.exp(-0.5 * z * z) / (lat.sigma * Math.sqrt(2 * Math.PI));
  } else f = (phi((x - min) / lat.sigma) - phi((x - max) / lat.sigma)) / (max - min);
  return (1 - OUTLIER) * f + (deltaS >= 0 && deltaS <= span ? OUTLIER / span : 0);
}
