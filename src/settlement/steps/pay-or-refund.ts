import type { OrderRecord } from '../../store/orders-store.ts';
import { refundOrder } from '../../store/settlement/refund-order.ts';
import { recoveredRefund } from '../chain-truth/rebuild-from-deposit.ts';
import { payoutDueAt, payoutDueTimes } from '../../store/settlement/payout-due-at.ts';
import { screenedAt, screenedOf } from '../../store/screening-log-store.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import { setPayoutDue } from '../../store/settlement/set-payout-due.ts';
import { depositMovement } from '../../ledger/order-movements.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { SETTLE_FALLBACK_SLOTS } from '../timing.ts';
import { drawPayoutDue } from '../../ledger/deposit-confirmation.ts';
import { startSwap, type SwapDeps } from './swap.ts';
import { heldAt, holdOrderForScreening, screenOrders, type ScreenDeps } from './screen-orders.ts';
import { recordScreenings } from '../../store/screening-log-store.ts';
import type { HoldVerdict } from '../../store/settlement/hold-for-screening.ts';
import { payersOf } from '../../chain/deposit-origin.ts';
import { STATUS } from '../../domain/order-state.ts';
import { quotedPrivate } from '../../domain/quote-privacy.ts';

/** What recording the payout due time touches. */
export type RecordPayoutDueDeps = Pick<SettlementContext, 'db' | 'config' | 'clock' | 'random'>;
/** What the pay-or-refund step touches. */
export type PayOrRefundDeps = RecordPayoutDueDeps & SwapDeps & ScreenDeps & Pick<SettlementContext, 'db' | 'payouts' | 'outbox' | 'slotMs' | 'view' | 'faults'>;

/** The deposit on the ledger (idempotent: one movement per order). */
export async function recordDeposit(ctx: Pick<SettlementContext, 'db'>, o: OrderRecord, amount: bigint): Promise<void> {
  await recordMovements(ctx.db, [depositMovement(o, amount)]);
}

/** Records the payout due time drawn for an order (drawPayoutDue; the first recorded wins) and returns the one in force. */
export async function recordPayoutDue(ctx: RecordPayoutDueDeps, o: OrderRecord, from: Date): Promise<Date> {
  return (await setPayoutDue(ctx.db, o.id, drawPayoutDue(ctx.config, o, from, ctx.random)))!;
}

/** What the order loop reads once for a batch of orders it pays or refunds (the store round trips a batch carries). */
export interface PayReads {
  /** Each order's payout due time, read after its deposit's ledger leg was written. */
  dueAt: Map<string, Date | null>;
  /** The orders with a deposit decision in the screening log (only read while screening is on). */
  screened: Set<string> | null;
  /**
   * The payout-stage screening of the orders whose payout is due now (screening on): null, passed and its
   * decision logged (one statement for the batch); else the finding that holds it.
   */
  payoutScreen: Map<string, HoldVerdict | null> | null;
}

/**
 * For a batch of `deposit_confirmed` / `swapping` orders: their deposits' ledger legs written (one statement;
 * idempotent: the confirmation wrote them already), then their due times and screening decisions read (one
 * statement each), so that a burst of due payouts costs the store a few statements, not a few per order.
 */
export async function payReads(ctx: PayOrRefundDeps, orders: OrderRecord[]): Promise<PayReads> {
  await recordMovements(ctx.db, orders.map((o) => depositMovement(o, BigInt(o.deposit?.amount ?? '0'))));
  // A private amount's due time may have moved since the claim read it (a class release draws it); any other's
  // is drawn once, at its confirmation, and the claimed row has it.
  const held = orders.filter((o) => quotedPrivate(o.quote));
  const [reread, screened] = await Promise.all([
    payoutDueTimes(ctx.db, held.map((o) => o.id)),
    ctx.screening.enabled ? screenedOf(ctx.db, orders.filter((o) => o.status === STATUS.deposit_confirmed).map((o) => o.trackingId), 'deposit') : null,
  ]);
  const dueAt = new Map(orders.map((o) => [o.id, reread.has(o.id) ? reread.get(o.id)! : o.payoutDueAt]));
  return { dueAt, screened, payoutScreen: screened ? await screenDuePayouts(ctx, orders, dueAt, screened) : null };
}

/**
 * docs/spec.md §12's screening before a payout, for the batch's orders whose payout the step will record now
 * (deposit screened, the amount matching, no swap to start, due): one log statement for those that pass, in
 * place of one per order. An order whose step turns elsewhere after all has a payout decision logged and no payout.
 */
async function screenDuePayouts(ctx: PayOrRefundDeps, orders: OrderRecord[], dueAt: Map<string, Date | null>, screened: Set<string>): Promise<Map<string, HoldVerdict | null>> {
  const now = ctx.clock.now();
  const due = orders.filter((o) => {
    const at = dueAt.get(o.id);
    if (!at || at.getTime() > now) return false;
    if (o.status === STATUS.swapping) return true;
    return screened.has(o.trackingId) && BigInt(o.deposit?.amount ?? '0') === o.amountIn && o.sourceAssetId === o.destinationAssetId;
  });
  const { holds, passed } = await screenOrders(ctx, due, 'payout');
  await recordScreenings(ctx.db, [...passed.values()]);
  return new Map(due.flatMap((o): [string, HoldVerdict | null][] => (holds.has(o.id) ? [[o.id, holds.get(o.id)!]] : passed.has(o.id) ? [[o.id, null]] : [])));
}

/**
 * `deposit_confirmed` / `swapping`: refunds a deposit that does not match, starts a swap, and once the
 * payout is due records it (through the payout queue) and sends it. `reads`: the batch's (payReads); alone,
 * the step reads for itself.
 */
export async function payOrRefund(ctx: PayOrRefundDeps, o: OrderRecord, reads?: PayReads): Promise<NextLook> {
  const deposited = BigInt(o.deposit?.amount ?? '0');
  // The confirmation records the deposit's ledger leg and its due time (confirmFundedOrders); both are put
  // here again, idempotently (the first recorded wins), so nothing moves without them whatever brought it here.
  if (!reads) await recordDeposit(ctx, o, deposited);
  let from: 'deposit_confirmed' | 'swapping' = o.status === STATUS.swapping ? STATUS.swapping : STATUS.deposit_confirmed;
  // Every confirmation screens and leaves its decision in the log (confirmFundedOrders, the worker's and the
  // hint's alike); one without (the log's write failed, or screening was off then) is screened here, at the
  // worker's first look (docs/spec.md §12). Before a deposit of the wrong amount is refunded, too: a refund
  // screens only the sender, so a deposit paid by a listed co-signer and hinted with one unit too many went
  // back through the pool to the sender with its payer never screened.
  const screened = async () => (reads?.screened ? reads.screened.has(o.trackingId) : screenedAt(ctx.db, o.trackingId, 'deposit'));
  if (from === STATUS.deposit_confirmed && ctx.screening.enabled && !(await screened())) {
    // Its payers too (docs/spec.md §12): the deposit's transaction, read once; unreadable, the next look asks again.
    const [tx] = o.deposit ? await ctx.view.transactionsMany([o.deposit.signature]).catch(() => [undefined]) : [null];
    if (tx === undefined) return { delayMs: 2000 };
    if (await heldAt(ctx, o, from, 'deposit', tx ? payersOf(tx) : [])) return {};
  }
  // An order rebuilt from its deposit whose record promises what the deposit cannot be shown to cover (rebuild-from-deposit.ts).
  const recovered = recoveredRefund(o.quote);
  if (recovered && from === STATUS.deposit_confirmed) {
    await refundOrder(ctx.db, o.id, STATUS.deposit_confirmed, recovered);
    return { delayMs: 0 };
  }
  if (deposited !== o.amountIn) {
    await refundOrder(ctx.db, o.id, 'deposit_confirmed', deposited < o.amountIn ? 'deposit_short' : 'deposit_over');
    return { delayMs: 0 };
  }
  if (from === STATUS.deposit_confirmed && o.sourceAssetId !== o.destinationAssetId) {
    const swap = await startSwap(ctx, o);
    if (swap === 'refund') return { delayMs: 0 };
    if (swap === 'wait') return { delayMs: 2000 };
    from = 'swapping';
  }
  // After a swap the due time is read again: the swap took its own time.
  const dueAt = reads && from === o.status && reads.dueAt.has(o.id) ? reads.dueAt.get(o.id)! : await payoutDueAt(ctx.db, o.id);
  if (dueAt === null) return { at: await recordPayoutDue(ctx, o, o.deposit?.confirmedAt ? new Date(o.deposit.confirmedAt) : ctx.clock.date()) };
  if (dueAt.getTime() > ctx.clock.now()) return { at: dueAt };
  // Before a payout is sent: lists change while a privacy delay holds it (screened with its batch, or here).
  const verdict = reads?.payoutScreen?.get(o.id);
  if (verdict === undefined ? await heldAt(ctx, o, from, 'payout') : verdict !== null) {
    if (verdict) await holdOrderForScreening(ctx, o, from, verdict);
    return {};
  }
  // Recorded and sent with the other payouts due now (PayoutQueue: one statement, one RPC batch).
  const { planned, ok } = await ctx.payouts.record(o, from);
  if (!planned) return { delayMs: 5000 };
  if (!ok) return { delayMs: 0 };
  return { delayMs: SETTLE_FALLBACK_SLOTS * ctx.slotMs };
}
