import type { OrderRecord } from '../store/orders-store.ts';
import { startPayouts } from '../store/settlement/start-payouts.ts';
import type { SettlementContext } from './context.ts';
import type { PlanReads, PlannedTransfer } from './pools.ts';
import { SETTLE_FALLBACK_SLOTS } from './timing.ts';

/** What choosing the payouts touches, and recording them. */
export type PayoutTxsDeps = Pick<SettlementContext, 'db' | 'pools'>;
export type PlanPayoutsDeps = PayoutTxsDeps & Pick<SettlementContext, 'workerId' | 'slotMs'>;

/** What the deposit → payout path needs of an order. */
export type PayableOrder = Pick<OrderRecord, 'id' | 'trackingId' | 'depositAccount' | 'sender' | 'recipient' | 'feeRecipient' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId' | 'mode' | 'txBlockhash' | 'quote'>;

/**
 * The signed payouts of orders about to be paid, inside `exclusive`, planned against the batch's shared
 * reads. An order its pools cannot cover has none; so has an order whose payout has the very bytes of
 * another's in the batch (same recipient, amount, pool and blockhash: one signature, so only one could
 * land), for the per-order step.
 */
export async function payoutTxs(ctx: PayoutTxsDeps, orders: PayableOrder[], shared: PlanReads): Promise<PlannedTransfer[]> {
  const plans = await Promise.all(orders.map((o) => ctx.pools.plan(o, 'payout', o.destinationAssetId, o.recipient, o.amountOut, {}, ctx.db, shared).catch(() => null)));
  const signatures = new Set<string>();
  const txs: PlannedTransfer[] = [];
  for (const plan of plans) {
    if (!plan || signatures.has(plan.signature)) continue;
    signatures.add(plan.signature);
    txs.push(plan);
  }
  return txs;
}

/**
 * Plans and records (one statement, which also moves the orders to `sending` and releases them) the
 * payouts of claimed `deposit_confirmed` orders, inside `exclusive`. Returns the orders that moved and
 * their transactions, to send.
 */
export async function recordPayouts(ctx: PlanPayoutsDeps, orders: PayableOrder[], shared: PlanReads): Promise<{ moved: Set<string>; txs: PlannedTransfer[] }> {
  const txs = await payoutTxs(ctx, orders, shared);
  const moved = await startPayouts(ctx.db, ctx.workerId, txs, SETTLE_FALLBACK_SLOTS * ctx.slotMs);
  return { moved, txs: txs.filter((t) => moved.has(t.orderId!)) };
}
