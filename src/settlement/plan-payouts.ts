import type { OrderRecord } from '../store/orders-store.ts';
import { startPayouts } from '../store/settlement/start-payouts.ts';
import type { SettlementContext } from './context.ts';
import { available, type PlanReads, type PlannedTransfer } from './pools.ts';
import { SETTLE_FALLBACK_SLOTS } from './timing.ts';

/** What choosing the payouts touches, and recording them. */
export type PayoutTxsDeps = Pick<SettlementContext, 'db' | 'config' | 'asset' | 'pools' | 'presigner'>;
export type PlanPayoutsDeps = PayoutTxsDeps & Pick<SettlementContext, 'workerId' | 'slotMs'>;

/** What the deposit → payout path needs of an order. */
export type PayableOrder = Pick<OrderRecord, 'id' | 'trackingId' | 'depositAccount' | 'sender' | 'recipient' | 'feeRecipient' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId' | 'mode' | 'txBlockhash' | 'quote'>;

/**
 * The signed payouts of orders about to be paid, inside `exclusive`: the one signed ahead (presign) when
 * its pool still covers it, else a fresh plan, kept like one signed ahead (a batch that cannot claim the
 * order, because another step holds it, then signs nothing again when it retries). Either is dropped
 * once its order moves to `sending` (the caller's part) or when it ages out. An order its pools cannot
 * cover has none; so has an order whose payout has the very bytes of another's in the batch (same
 * recipient, amount, pool and blockhash: one signature, so only one could land), for the per-order step.
 */
export async function payoutTxs(ctx: PayoutTxsDeps, orders: PayableOrder[], shared: PlanReads): Promise<PlannedTransfer[]> {
  const presigner = ctx.presigner;
  const byOrder = new Map<string, PlannedTransfer>();
  const toPlan: PayableOrder[] = [];
  // Signing them ahead is under way: finishing it is sooner than starting over.
  const running = presigner.runFor(orders.map((o) => o.id));
  if (running) await running;
  for (const o of orders) {
    const pre = presigner.get(o.id);
    const usable =
      pre &&
      Date.now() - pre.at < presigner.maxAgeMs() &&
      pre.tx.destination === o.recipient &&
      pre.tx.amount === o.amountOut &&
      pre.tx.assetId === o.destinationAssetId &&
      available(ctx.asset(o.destinationAssetId), pre.tx.source, shared) >= pre.tx.amount;
    if (usable) {
      shared.taken.set(pre.tx.source, (shared.taken.get(pre.tx.source) ?? 0n) + pre.tx.amount);
      byOrder.set(o.id, pre.tx);
    } else {
      presigner.drop([o.id]);
      toPlan.push(o);
    }
  }
  const now = Date.now();
  const plans = await Promise.all(toPlan.map((o) => ctx.pools.plan(o, 'payout', o.destinationAssetId, o.recipient, o.amountOut, {}, ctx.db, shared).catch(() => null)));
  toPlan.forEach((o, i) => {
    const plan = plans[i];
    if (!plan) return;
    byOrder.set(o.id, plan);
    // Kept only where presign's sweep ages them out (no privacy delay).
    if (!plan.meta.sources && ctx.config.payoutDelayS.max === 0) presigner.keep(o.id, { tx: plan, depositAccount: o.depositAccount, at: now });
  });
  const signatures = new Set<string>();
  const txs: PlannedTransfer[] = [];
  for (const plan of byOrder.values()) {
    if (signatures.has(plan.signature)) continue;
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
  ctx.presigner.drop(moved);
  return { moved, txs: txs.filter((t) => moved.has(t.orderId!)) };
}
