import type { OrderRecord } from '../../store/orders-store.ts';
import { refundOrder } from '../../store/settlement/refund-order.ts';
import { payoutDueAt } from '../../store/settlement/payout-due-at.ts';
import { screenedAt } from '../../store/screening-log-store.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import { setPayoutDue } from '../../store/settlement/set-payout-due.ts';
import { depositMovement } from '../../ledger/order-movements.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { SETTLE_FALLBACK_SLOTS } from '../timing.ts';
import { drawPayoutDue } from '../../ledger/deposit-confirmation.ts';
import { startSwap, type SwapDeps } from './swap.ts';
import { heldAt, type ScreenDeps } from './screen-orders.ts';
import { payersOf } from '../../chain/deposit-origin.ts';
import { STATUS } from '../../domain/order-state.ts';

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

/**
 * `deposit_confirmed` / `swapping`: refunds a deposit that does not match, starts a swap, and once the
 * payout is due records it (through the payout queue) and sends it.
 */
export async function payOrRefund(ctx: PayOrRefundDeps, o: OrderRecord): Promise<NextLook> {
  const deposited = BigInt(o.deposit?.amount ?? '0');
  // The confirmation records the deposit's ledger leg and its due time (confirmFundedOrders); both are put
  // here again, idempotently (the first recorded wins), so nothing moves without them whatever brought it here.
  await recordDeposit(ctx, o, deposited);
  let from: 'deposit_confirmed' | 'swapping' = o.status === STATUS.swapping ? STATUS.swapping : STATUS.deposit_confirmed;
  // Every confirmation screens and leaves its decision in the log (confirmFundedOrders, the worker's and the
  // hint's alike); one without (the log's write failed, or screening was off then) is screened here, at the
  // worker's first look (docs/spec.md §12). Before a deposit of the wrong amount is refunded, too: a refund
  // screens only the sender, so a deposit paid by a listed co-signer and hinted with one unit too many went
  // back through the pool to the sender with its payer never screened.
  if (from === STATUS.deposit_confirmed && ctx.screening.enabled && !(await screenedAt(ctx.db, o.trackingId, 'deposit'))) {
    // Its payers too (docs/spec.md §12): the deposit's transaction, read once; unreadable, the next look asks again.
    const [tx] = o.deposit ? await ctx.view.transactionsMany([o.deposit.signature]).catch(() => [undefined]) : [null];
    if (tx === undefined) return { delayMs: 2000 };
    if (await heldAt(ctx, o, from, 'deposit', tx ? payersOf(tx) : [])) return {};
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
  const dueAt = await payoutDueAt(ctx.db, o.id);
  if (dueAt === null) return { at: await recordPayoutDue(ctx, o, o.deposit?.confirmedAt ? new Date(o.deposit.confirmedAt) : ctx.clock.date()) };
  if (dueAt.getTime() > ctx.clock.now()) return { at: dueAt };
  // Before a payout is sent: lists change while a privacy delay holds it.
  if (await heldAt(ctx, o, from, 'payout')) return {};
  const { planned, ok } = await ctx.payouts.record(o, from);
  if (!planned) return { delayMs: 5000 };
  if (!ok) return { delayMs: 0 };
  ctx.faults.reach('payout-recorded');
  await ctx.outbox.sendAll([planned.wire]);
  ctx.faults.reach('payout-sent');
  return { delayMs: SETTLE_FALLBACK_SLOTS * ctx.slotMs };
}
