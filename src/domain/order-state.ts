/**
 * docs/spec.md §5 order states, what each means (STATUS_TRAITS), how each is handled (STATUS_HANDLING) and
 * the only transitions allowed between them, declared once. The store's transition module (src/store/order-transitions.ts) registers one writer
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
  /**
   * Its deposit was taken into its class (docs/spec.md §9 "Traffic"): it counts as the class's traffic when the
   * amount was exact. A deposit only detected, refunded, held or frozen is not company anybody was released with,
   * and counting it would let anyone stretch a class's wait with deposits Hush gives back.
   */
  classTraffic: boolean;
}

const T = (t: Partial<StatusTraits>): StatusTraits => ({
  final: false, awaitsDeposit: false, countsAsOpen: false, awaitsPayout: false, owesAmountOut: false, watchdogMayAct: false, operatorHold: false, receipted: false, classTraffic: false, ...t,
});

export const STATUS_TRAITS: Readonly<Record<OrderStatus, StatusTraits>> = {
  awaiting_deposit: T({ awaitsDeposit: true, countsAsOpen: true }),
  deposit_detected: T({ awaitsDeposit: true, owesAmountOut: true, watchdogMayAct: true }),
  deposit_confirmed: T({ awaitsPayout: true, owesAmountOut: true, watchdogMayAct: true, classTraffic: true }),
  swapping: T({ awaitsPayout: true, owesAmountOut: true, watchdogMayAct: true, classTraffic: true }),
  sending: T({ watchdogMayAct: true, classTraffic: true }),
  refunding: T({ watchdogMayAct: true }),
  // Held by screening before anything was sent: released it pays its amountOut, so it still owes it.
  held: T({ owesAmountOut: true, operatorHold: true }),
  completed: T({ final: true, receipted: true, classTraffic: true }),
  expired: T({ final: true }),
  refunded: T({ final: true, receipted: true }),
  failed: T({ final: true, receipted: true }),
  frozen: T({ final: true, receipted: true }),
};

/**
 * Each status by its name (`STATUS.sending`): code that means one status names it through the registry,
 * never as a quoted literal in a comparison or in SQL (test/store/status-literals.test.ts).
 */
export const STATUS = Object.fromEntries(ORDER_STATUSES.map((s) => [s, s])) as { readonly [S in OrderStatus]: S };

/** The status every order is born in (docs/spec.md §5): the store's creation writes it and only it. */
export const INITIAL_STATUS = STATUS.awaiting_deposit;

/** The store's writers of an order's status (src/store/order-writers.ts), by name: domain imports nothing of the store. */
export type StatusWriter =
  | 'detectDeposit' | 'undetectDeposit' | 'expireOrder' | 'confirmDeposits' | 'markSwapping' | 'startPayouts'
  | 'completePayouts' | 'refundOrder' | 'finishRefund' | 'failOrder' | 'holdForScreening' | 'resolveHold';

/** The order loop's steps (src/settlement/orders.ts runs the one its claimed order's status names). */
export type OrderStep = 'confirmOrExpire' | 'payOrRefund' | 'advancePayout';

/** Who else acts on an order in a status (docs/architecture.md's steps table), besides the order loop. */
export type StatusActor = 'deposit watch' | 'deposit hint' | 'class release' | 'settle fates' | 'watchdog' | 'operator' | 'receipt signer';

/** How Hush handles an order in one status: who acts on it, and what moves it on. */
export interface StatusHandling {
  /** The order loop's step for it when the loop claims it (orders.ts dispatches on this); null: never stepped. */
  step: OrderStep | null;
  /** Who else acts on it (test/domain/order-state.test.ts checks these against the traits). */
  also: readonly StatusActor[];
  /**
   * Every move out of it, to the status it sets, with the one writer that makes it: test/store/order-lifecycle.test.ts
   * checks these against the writers' registry both ways (a move listed here has exactly this writer, and
   * every registered move is listed). A move may pass a status (awaiting_deposit → deposit_confirmed).
   */
  exits: Readonly<Partial<Record<OrderStatus, StatusWriter>>>;
}

const FAIL = { failed: 'failOrder' } as const;

/** docs/spec.md §5 as Hush runs it: each status's handling, in one table beside its traits. */
export const STATUS_HANDLING: Readonly<Record<OrderStatus, StatusHandling>> = {
  awaiting_deposit: {
    step: 'confirmOrExpire',
    also: ['deposit watch', 'deposit hint'],
    exits: { deposit_detected: 'detectDeposit', deposit_confirmed: 'confirmDeposits', expired: 'expireOrder', ...FAIL },
  },
  deposit_detected: {
    step: 'confirmOrExpire',
    also: ['deposit watch', 'deposit hint', 'watchdog'],
    exits: { deposit_confirmed: 'confirmDeposits', awaiting_deposit: 'undetectDeposit', ...FAIL },
  },
  deposit_confirmed: {
    step: 'payOrRefund',
    also: ['class release', 'watchdog'],
    exits: { swapping: 'markSwapping', sending: 'startPayouts', refunding: 'refundOrder', held: 'holdForScreening', ...FAIL },
  },
  swapping: {
    step: 'payOrRefund',
    also: ['class release', 'watchdog'],
    exits: { sending: 'startPayouts', refunding: 'refundOrder', held: 'holdForScreening', ...FAIL },
  },
  sending: {
    step: 'advancePayout',
    also: ['settle fates', 'watchdog'],
    exits: { completed: 'completePayouts', refunding: 'refundOrder', held: 'holdForScreening', ...FAIL },
  },
  refunding: {
    step: 'advancePayout',
    also: ['settle fates', 'watchdog'],
    exits: { refunded: 'finishRefund', held: 'holdForScreening', ...FAIL },
  },
  // Never claimed (its next run is infinity): only the operator's resolution moves it.
  held: { step: null, also: ['operator'], exits: { deposit_confirmed: 'resolveHold', refunding: 'resolveHold', frozen: 'resolveHold', ...FAIL } },
  completed: { step: null, also: ['receipt signer'], exits: {} },
  expired: { step: null, also: [], exits: {} },
  refunded: { step: null, also: ['receipt signer'], exits: {} },
  failed: { step: null, also: ['receipt signer'], exits: {} },
  frozen: { step: null, also: ['receipt signer'], exits: {} },
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
