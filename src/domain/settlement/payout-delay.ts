/**
 * When a payout is due: `from` plus a privacy delay uniform over [min, max] seconds to the millisecond.
 * `randomInt(n)`: a uniform integer in [0, n) (node:crypto's randomInt in production).
 */
export function payoutDue(from: Date, delayS: { min: number; max: number }, randomInt: (n: number) => number): Date {
  const delayMs = Math.round(delayS.min * 1000) + randomInt(Math.round((delayS.max - delayS.min) * 1000) + 1);
  return new Date(from.getTime() + delayMs);
}
