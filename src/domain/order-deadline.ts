/** When an order stops accepting its deposit (docs/spec.md §4 `expiration`, §11 `HUSH_ORDER_TTL_S`). */

export interface DeadlineSettings {
  /** HUSH_ORDER_TTL_S: the deadline of every order. */
  orderTtlS: number;
  /** HUSH_SWAP_ORDER_TTL_S: an operator may give swaps a shorter deadline (their rate is firm); null: none. */
  swapOrderTtlS: number | null;
}

export function orderTtlS(isSwap: boolean, s: DeadlineSettings): number {
  return isSwap && s.swapOrderTtlS !== null ? Math.min(s.orderTtlS, s.swapOrderTtlS) : s.orderTtlS;
}

/**
 * The deadline is enforced by blockhash expiry, so it may never come before the death of the
 * transaction handed out with the order.
 */
export function orderExpirationMs(createdAtMs: number, ttlS: number, transactionDeathMs: number): number {
  return Math.max(createdAtMs + ttlS * 1000, Math.ceil(transactionDeathMs));
}
