/**
 * docs/spec.md §5 order states and the only transitions allowed between them, declared once. The one
 * writer of an order's status (src/store/order-transitions.ts) refuses any other edge (canTransition)
 * when it builds a statement, so a bug cannot move an order backwards or out of a final state; races
 * between workers lose their compare-and-set.
 */

export const ORDER_STATUSES = [
  'awaiting_deposit',
  'deposit_detected',
  'deposit_confirmed',
  'swapping',
  'sending',
  'completed',
  'expired',
  'refunding',
  'refunded',
  'failed',
  // docs/spec.md §12: screening stopped the order before anything was sent; an operator resolves it.
  'held',
  'frozen',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The final statuses: declared once here; the store's SQL lists of them are built from this. */
export const FINAL_STATUSES = ['completed', 'expired', 'refunded', 'failed', 'frozen'] as const satisfies readonly OrderStatus[];

const FINAL: ReadonlySet<OrderStatus> = new Set<OrderStatus>(FINAL_STATUSES);

/** Forward edges as listed in docs/spec.md §5; "any non-final → failed" is added below, not repeated here. */
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  awaiting_deposit: ['deposit_detected', 'expired'],
  // Back to awaiting_deposit when the seen deposit transaction failed or its blockhash expired.
  deposit_detected: ['deposit_confirmed', 'awaiting_deposit'],
  // swapping only for cross-asset orders; refunding when the deposit cannot be delivered
  // (e.g. its amount differs from amountIn).
  deposit_confirmed: ['swapping', 'sending', 'refunding', 'held'],
  swapping: ['sending', 'refunding', 'held'],
  sending: ['completed', 'refunding', 'held'],
  refunding: ['refunded'],
  // The operator's resolution (docs/spec.md §12): release, refund or freeze.
  held: ['deposit_confirmed', 'refunding', 'frozen'],
  frozen: [],
  completed: [],
  expired: [],
  refunded: [],
  failed: [],
};

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

export function isFinal(status: OrderStatus): boolean {
  return FINAL.has(status);
}

/** Statuses reachable from `from` in one step. */
export function nextStatuses(from: OrderStatus): readonly OrderStatus[] {
  return isFinal(from) ? [] : [...NEXT[from], 'failed'];
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  if (isFinal(from)) return false;
  return to === 'failed' || NEXT[from].includes(to);
}
