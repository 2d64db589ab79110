import { pinnedAmount } from '../class-release.ts';

/**
 * When a payout is due: `from` plus a privacy delay uniform over [min, max] seconds to the millisecond.
 * `randomInt(n)`: a uniform integer in [0, n) (node:crypto's randomInt in production).
 */
export function payoutDue(from: Date, delayS: { min: number; max: number }, randomInt: (n: number) => number): Date {
  const delayMs = Math.round(delayS.min * 1000) + randomInt(Math.round((delayS.max - delayS.min) * 1000) + 1);
  return new Date(from.getTime() + delayMs);
}

export interface DuePolicy {
  privacy: 'on' | 'off';
  /** HUSH_PAYOUT_DELAY_S: the delay with privacy off, a release's spread with it on. */
  delayS: { min: number; max: number };
  /** HUSH_PRIVACY_MAX_DELAY_S: a class's cap. */
  maxDelayS: number;
  /** Two slots: never the deposit's slot or the next (SPEC §9). */
  minGapMs: number;
}

/**
 * The due time drawn at a deposit's confirmation. With privacy on, a standard payout is due at its
 * class's cap plus the spread: the class release (class-release.ts) brings it forward when its class fills
 * first, so the cap holds even if no release ever runs. A non-standard payout waits only the minimum gap:
 * no wait hides a unique amount.
 */
export function payoutDueFor(from: Date, standard: boolean, policy: DuePolicy, randomInt: (n: number) => number): Date {
  if (policy.privacy === 'off') return payoutDue(from, policy.delayS, randomInt);
  if (!standard) return new Date(from.getTime() + policy.minGapMs);
  return payoutDue(new Date(from.getTime() + policy.maxDelayS * 1000), policy.delayS, randomInt);
}

/** Two slots: a payout never lands in its deposit's slot or the next (SPEC §9). */
export function minGapMs(slotMs: number): number {
  return 2 * slotMs;
}

/** payoutDueFor of an order: standard when its pinned amount is one of its source asset's denominations. */
export function orderPayoutDue(
  o: { mode: string; amountIn: bigint; amountOut: bigint },
  denominations: readonly bigint[],
  from: Date,
  settings: { privacy: 'on' | 'off'; delayS: { min: number; max: number }; maxDelayS: number; slotMs: number },
  randomInt: (n: number) => number,
): Date {
  const standard = denominations.includes(pinnedAmount(o));
  return payoutDueFor(from, standard, { privacy: settings.privacy, delayS: settings.delayS, maxDelayS: settings.maxDelayS, minGapMs: minGapMs(settings.slotMs) }, randomInt);
}
