import { quotedPrivate } from '../quote-privacy.ts';
import { choiceOf, type PrivacyChoice } from '../privacy-choice.ts';

/**
 * When a payout is due: `from` plus a privacy delay uniform over [min, max] seconds to the millisecond.
 * `randomInt(n)`: a uniform integer in [0, n) (the runtime's Random in production: src/support/random.ts).
 */
export function payoutDue(from: Date, delayS: { min: number; max: number }, randomInt: (n: number) => number): Date {
  const delayMs = Math.round(delayS.min * 1000) + randomInt(Math.round((delayS.max - delayS.min) * 1000) + 1);
  return new Date(from.getTime() + delayMs);
}

export interface DuePolicy {
  /** HUSH_PAYOUT_DELAY_S: a release's spread. */
  delayS: { min: number; max: number };
  /**
   * How long a standard payout waits for its class at most before its release's spread, for the choice its
   * partner made (memberHoldMs of the release policy, plus the release's pass).
   */
  holdMs: (choice: PrivacyChoice | undefined) => number;
  /** Two slots: never the deposit's slot or the next (docs/spec.md §9). */
  minGapMs: number;
}

/**
 * The due time drawn at a deposit's confirmation. A standard payout is due at the end of
 * its hold plus the spread, within the delay budget: the class release (class-release.ts) brings it
 * forward when its class goes earlier, so the budget holds even if no release ever runs. A non-standard payout waits only the minimum gap:
 * no wait hides a unique amount.
 */
export function payoutDueFor(from: Date, standard: boolean, policy: DuePolicy, randomInt: (n: number) => number, choice?: PrivacyChoice): Date {
  if (!standard) return new Date(from.getTime() + policy.minGapMs);
  return payoutDue(new Date(from.getTime() + policy.holdMs(choice)), policy.delayS, randomInt);
}

/** Two slots: a payout never lands in its deposit's slot or the next (docs/spec.md §9). */
export function minGapMs(slotMs: number): number {
  return 2 * slotMs;
}

/** payoutDueFor of an order: held for its class when its quote promised privacy (quotedPrivate). */
export function orderPayoutDue(
  o: { quote: unknown },
  from: Date,
  settings: { delayS: { min: number; max: number }; holdMs: (choice: PrivacyChoice | undefined) => number; slotMs: number },
  randomInt: (n: number) => number,
): Date {
  const requested = choiceOf((o.quote as { privacy?: { requested?: unknown } } | null)?.privacy?.requested);
  return payoutDueFor(from, quotedPrivate(o.quote), { delayS: settings.delayS, holdMs: settings.holdMs, minGapMs: minGapMs(settings.slotMs) }, randomInt, requested);
}
