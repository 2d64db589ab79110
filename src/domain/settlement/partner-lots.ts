/**
 * Partner fees go out in rounded lots on a jittered schedule (docs/spec.md §9): a payout that were the exact sum
 * of a period's fees, sent on the clock, would let anyone subset-sum the period's orders (each fee is
 * floor(amountIn × feeBps / 10000), public arithmetic) and time them.
 */

/** A lot: a hundredth of the asset's smallest standard amount (a cent of USDC, 0.0001 SOL). */
export function partnerLot(denominations: readonly bigint[]): bigint {
  const smallest = denominations[0] ?? 1n;
  const lot = smallest / 100n;
  return lot > 0n ? lot : 1n;
}

/** What is paid of `owed`: whole lots; the rest keeps accruing. */
export function payableLots(owed: bigint, lot: bigint): bigint {
  if (owed <= 0n) return 0n;
  return owed - (owed % lot);
}

/** The wait before the next partner payout pass: the configured interval × uniform(0.5, 1.5). */
export function jitteredIntervalMs(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (0.5 + random()));
}
