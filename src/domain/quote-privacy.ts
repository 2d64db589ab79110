/**
 * What a quote promises about privacy (docs/spec.md §4 `privacy`, §9): whether the pinned amount is standard,
 * the release set and delay the order gets at least four times in five (`anonymitySet`, `delaySeconds`), the
 * central estimate of the set (`anonymitySetLikely`), all from what Hush has seen of the class's traffic
 * (class-forecast.ts), and the nearest standard amounts. bench:privacy checks the promise against each
 * order's receipt and the central estimate against the measured set (within ×2).
 */
import type { ClassEvidence } from './class-forecast.ts';
import { expectedRelease, PROMISE_ODDS, type ReleasePolicy } from './class-release.ts';
import type { Amount } from './money.ts';
import type { PrivacyChoice } from './privacy-choice.ts';

/** At most this many suggestions; the quote layout carries no more. */
const SUGGESTIONS = 4;

export interface PrivacyEstimate {
  standard: boolean;
  /** The release size the order gets at least four times in five (PROMISE_ODDS). */
  anonymitySet: number;
  /** The central estimate of the release size: what the order most likely gets (≥ anonymitySet). */
  anonymitySetLikely: number;
  /** Seconds from the deposit's confirmation to the payout's send, not exceeded four times in five. */
  delaySeconds: number;
  suggestedAmounts: Amount[];
  /** How sure the estimate is: `measured` from the class's traffic, `no_traffic` when there is none to measure. */
  basis: 'measured' | 'no_traffic';
  /** The partner's choice, echoed (and sealed in the quote). */
  requested?: PrivacyChoice;
}

/**
 * The denominations within [min, max] closest to `amount` by ratio (sending 19 is nearer 20 than 10),
 * ascending; the amount itself when it is one.
 */
export function nearestStandard(amount: bigint, denominations: readonly bigint[], bounds: { min: bigint; max: bigint }): Amount[] {
  const usable = denominations.filter((d) => d >= bounds.min && d <= bounds.max);
  // Ratios of u64 values: doubles are exact enough to rank them, and nothing here is money arithmetic.
  const distance = (d: bigint): number => Math.abs(Math.log(Number(d)) - Math.log(Number(amount > 0n ? amount : 1n)));
  return usable
    .map((d) => ({ d, far: distance(d) }))
    .sort((a, b) => a.far - b.far || (a.d < b.d ? -1 : 1))
    .slice(0, SUGGESTIONS)
    .map((x) => x.d as Amount)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The quote's privacy promise. A non-standard amount is unique on the chain: no wait would hide it, so it
 * gets none (the two slots' floor) and a set of 1.
 */
export function estimatePrivacy(
  input: { standard: boolean; classTraffic: ClassEvidence | undefined; crowdTraffic?: ClassEvidence | undefined; suggestedAmounts: Amount[]; requested?: PrivacyChoice },
  policy: ReleasePolicy,
): PrivacyEstimate {
  const { standard, suggestedAmounts, requested } = input;
  const echo = requested !== undefined ? { requested } : {};
  const traffic = input.classTraffic;
  // Only a class's own traffic can be measured; a unique amount's set of one is certain.
  const basis = standard && !(traffic !== undefined && (typeof traffic === 'number' ? traffic > 0 : traffic.arrivals > 0)) ? 'no_traffic' : 'measured';
  if (!standard) return { standard, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 0, suggestedAmounts, basis, ...echo };
  const release = expectedRelease(traffic, policy, requested, input.crowdTraffic);
  // A payout goes at a uniform moment of the release's spread: at the promise's odds that adds its first
  // PROMISE_ODDS of it to the class's wait. A payout that goes at once (no traffic, or a history too thin to
  // hold for) is not spread: only the two slots.
  const spreadS = release.atOnce ? policy.minGapMs / 1000 : (policy.spreadFromMs + PROMISE_ODDS * policy.spreadMs) / 1000;
  const promised = Math.max(1, Math.floor(release.promisedBatch));
  return {
    standard,
    anonymitySet: promised,
    anonymitySetLikely: Math.max(promised, Math.floor(release.batch)),
    delaySeconds: Math.ceil(release.promisedDelaySeconds + spreadS),
    suggestedAmounts,
    basis,
    ...echo,
  };
}

/**
 * Whether an order is private: what its quote said (the quote is sealed and kept with the order). The
 * menu may change between a quote and its deposit (a deploy, HUSH_DENOMINATIONS); a transfer promised
 * privacy keeps it, and one promised none is not held.
 */
export function quotedPrivate(quote: unknown): boolean {
  return (quote as { privacy?: { standard?: unknown } } | null)?.privacy?.standard === true;
}
