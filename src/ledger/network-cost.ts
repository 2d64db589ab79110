import type { Movement } from '../store/settlement/movements.ts';

/**
 * What a landed Hush transaction cost its fee payer, for the ledger: the network fee, and the rest of the
 * fee payer's lamport change as rent paid (accounts it created) or received (accounts closed to it).
 *
 * `absorbed`, for a transaction the quotes' flat networkFee prices (a payout, refund or sweep): how much more
 * its priority fee was than the flat figure's rung would have paid (less, when negative), booked apart as
 * `expense:network_absorbed` (docs/spec.md §9: the market moves every slot, the flat figure only on the grid's
 * rungs, and Hush pays the difference). `expense:network` then holds what the flat figure priced.
 */
export function networkCostMovement(signature: string, feePayer: string, costs: { fee: bigint; feePayerDelta: bigint }, absorbed = 0n): Movement {
  const rent = -costs.feePayerDelta - costs.fee;
  return {
    movement: `tx:${signature}:cost`,
    kind: 'network_cost',
    legs: [
      { account: `feepayer:${feePayer}`, assetId: 'sol', amount: costs.feePayerDelta },
      { account: 'expense:network', assetId: 'sol', amount: costs.fee - absorbed },
      ...(absorbed === 0n ? [] : [{ account: 'expense:network_absorbed', assetId: 'sol', amount: absorbed }]),
      { account: rent >= 0n ? 'expense:rent' : 'income:rent', assetId: 'sol', amount: rent },
    ],
  };
}

/**
 * The rung the flat figure that prices a transaction was quoted at: its order's (a payout, a refund), or the mean
 * of its orders' (a sweep: each order's networkFee priced a whole sweep as if alone; they nearly always share one
 * rung, and the mean favours none). `quoted`: the orders' rungs by id (src/store/settlement/order-fee-prices.ts);
 * an order without one (older than the column) counts at `fallback`, the rung in effect at settlement.
 */
export function quotedPriceOf(orderIds: readonly string[], quoted: ReadonlyMap<string, bigint>, fallback: bigint): bigint {
  if (orderIds.length === 0) return fallback;
  let sum = 0n;
  for (const id of orderIds) sum += quoted.get(id) ?? fallback;
  return sum / BigInt(orderIds.length);
}

/** The part of a transaction's priority fee beyond what `flatPrice` would have paid for `units` (negative: below it). */
export function absorbedPriorityFee(paidPrice: bigint, flatPrice: bigint, units: number): bigint {
  const fee = (price: bigint) => (price * BigInt(units) + 999_999n) / 1_000_000n;
  return fee(paidPrice) - fee(flatPrice);
}
