/**
 * docs/spec.md §5 order states, what each means (STATUS_TRAITS) and the only transitions allowed between
 * them, declared once. The store's transition module (src/store/order-transitions.ts) registers one writer
 * per move and refuses any other edge (canTransition) when it builds a statement, so a bug cannot move an order backwards or out of a final state; races
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

/**
 * What each status means to the rest of Hush, declared once beside the states: every list of statuses in
 * the store's SQL is built from these (statusesWhere), never written out by hand.
 */
export interface StatusTraits {
  /** No edge leaves it. */
  final: boolean;
  /** Waiting for its deposit (the deposit watch reads its account; not yet sweepable). */
  awaitsDeposit: boolean;
  /** An open unfunded order: counted against the account's open orders, holding liquidity for a while (docs/spec.md §4). */
  countsAsOpen: boolean;
  /** Deposit confirmed, payout not yet recorded: waits for its due time or its class's release. */
  awaitsPayout: boolean;
  /** Owes its whole amountOut to the pools' commitments (sending and refunding owe what no live transaction covers). */
  owesAmountOut: boolean;
  /** The watchdog may fail it when nothing moved it for too long. */
  watchdogMayAct: boolean;
  /** Parked for the operator's resolution (docs/spec.md §12): listed in the holds, never claimed by a worker. */
  operatorHold: boolean;
  /** Gets a disclosure receipt (docs/spec.md §12): final with a deposit Hush took (an expired order took none). */
  receipted: boolean;
}

const T = (t: Partial<StatusTraits>): StatusTraits => ({
  final: false, awaitsDeposit: false, countsAsOpen: false, awaitsPayout: false, owesAmountOut: false, watchdogMayAct: false, operatorHold: false, receipted: false, ...t,
});

export const STATUS_TRAITS: Readonly<Record<OrderStatus, StatusTraits>> = {
  awaiting_deposit: T({ awaitsDeposit: true, countsAsOpen: true }),
  deposit_detected: T({ awaitsDeposit: true, owesAmountOut: true, watchdogMayAct: true }),
  deposit_confirmed: T({ awaitsPayout: true, owesAmountOut: true, watchdogMayAct: true }),
  swapping: T({ awaitsPayout: true, owesAmountOut: true, watchdogMayAct: true }),
  sending: T({ watchdogMayAct: true }),
  refunding: T({ watchdogMayAct: true }),
  // Held by screening before anything was sent: released it pays its amountOut, so it still owes it.
  held: T({ owesAmountOut: true, operatorHold: true }),
  completed: T({ final: true, receipted: true }),
  expired: T({ final: true }),
  refunded: T({ final: true, receipted: true }),
  failed: T({ final: true, receipted: true }),
  frozen: T({ final: true, receipted: true }),
};

/** The statuses with `trait` (or without it, `has: false`), in declaration order. */
export function statusesWhere(trait: keyof StatusTraits, has = true): OrderStatus[] {
  return ORDER_STATUSES.filter((s) => STATUS_TRAITS[s][trait] === has);
}

/** The final statuses (STATUS_TRAITS' `final`). */
export const FINAL_STATUSES: readonly OrderStatus[] = statusesWhere('final');

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
  // docs/spec.md §12: a refund is screened before it is sent; a blocked (or uncleared) sender holds it.
  refunding: ['refunded', 'held'],
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
