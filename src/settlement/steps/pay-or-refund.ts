import { transitionOrder, type OrderRecord } from '../../store/orders-store.ts';
import { payoutDueAt } from '../../store/settlement/payout-due-at.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import { setPayoutDue } from '../../store/settlement/set-payout-due.ts';
import { depositMovement } from '../../ledger/order-movements.ts';
import { faultPoint } from '../outbox.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { SETTLE_FALLBACK_SLOTS } from '../timing.ts';
import { drawDue } from './confirm-deposits.ts';
import { startSwap, type SwapDeps } from './swap.ts';

/** What drawing the privacy delay touches (drawDue's own, plus the store). */
export type DrawPayoutDueDeps = Pick<SettlementContext, 'db'> & Parameters<typeof drawDue>[0];
/** What the pay-or-refund step touches. */
export type PayOrRefundDeps = DrawPayoutDueDeps & SwapDeps & Pick<SettlementContext, 'db' | 'payouts' | 'outbox' | 'slotMs'>;

/** The deposit on the ledger (idempotent: one movement per order). */
export async function recordDeposit(ctx: Pick<SettlementContext, 'db'>, o: OrderRecord, amount: bigint): Promise<void> {
  await recordMovements(ctx.db, [depositMovement(o, amount)]);
}

/** Draws the privacy delay once per order (the first draw wins) and returns the payout due time. */
export async function drawPayoutDue(ctx: DrawPayoutDueDeps, o: OrderRecord, from: Date): Promise<Date> {
  return (await setPayoutDue(ctx.db, o.id, drawDue(ctx, o, from)))!;
}

/**
 * `deposit_confirmed` / `swapping`: refunds a deposit that does not match, starts a swap, and once the
 * payout is due records it (through the payout queue) and sends it.
 */
export async function payOrRefund(ctx: PayOrRefundDeps, o: OrderRecord): Promise<NextLook> {
  const deposited = BigInt(o.deposit?.amount ?? '0');
  // A deposit confirmed through the deposit hint (the API) never went through confirmDeposits: put it on
  // the ledger and draw its privacy delay here (both idempotent), before anything moves.
  await recordDeposit(ctx, o, deposited);
  if (deposited !== o.amountIn) {
    await transitionOrder(ctx.db, o.id, 'deposit_confirmed', 'refunding', { failureReason: deposited < o.amountIn ? 'deposit_short' : 'deposit_over' });
    return { delayMs: 0 };
  }
  let from: 'deposit_confirmed' | 'swapping' = o.status === 'swapping' ? 'swapping' : 'deposit_confirmed';
  if (from === 'deposit_confirmed' && o.sourceAssetId !== o.destinationAssetId) {
    const swap = await startSwap(ctx, o);
    if (swap === 'refund') return { delayMs: 0 };
    if (swap === 'wait') return { delayMs: 2000 };
    from = 'swapping';
  }
  const dueAt = await payoutDueAt(ctx.db, o.id);
  if (dueAt === null) return { at: await drawPayoutDue(ctx, o, new Date(o.deposit?.confirmedAt ?? Date.now())) };
  if (dueAt.getTime() > Date.now()) return { at: dueAt };
  const { planned, ok } = await ctx.payouts.record(o, from);
  if (!planned) return { delayMs: 5000 };
  if (!ok) return { delayMs: 0 };
  faultPoint('payout-recorded');
  await ctx.outbox.sendAll([planned.wire]);
  faultPoint('payout-sent');
  return { delayMs: SETTLE_FALLBACK_SLOTS * ctx.slotMs };
}
