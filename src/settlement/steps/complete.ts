import { allOrNothing } from '../../store/db.ts';
import type { OrderRecord } from '../../store/orders-store.ts';
import { finishRefund } from '../../store/settlement/finish-refund.ts';
import type { ChainTxOf } from '../../store/settlement/chain-tx.ts';

type Transfer = ChainTxOf<'payout' | 'refund'>;
import { chainTxsOfOrder, chainTxsOfOrders } from '../../store/settlement/chain-txs-of-orders.ts';
import { claimOrder } from '../../store/settlement/claim-order.ts';
import { completePayouts, type PayoutCompletion } from '../../store/settlement/complete-payouts.ts';
import { ordersByIds } from '../../store/settlement/orders-by-ids.ts';
import { recordMovement } from '../../store/settlement/record-movements.ts';
import { releaseOrder } from '../../store/settlement/release-orders.ts';
import { feeMovement, refundFeeLegs } from '../../ledger/order-movements.ts';
import { observeCompleted } from '../settlement-metrics.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { STATUS, STATUS_HANDLING } from '../../domain/order-state.ts';
import { SETTLE_FALLBACK_SLOTS } from '../timing.ts';
import { startRefund, type RefundDeps } from './refund.ts';
import { refundRefusedPayout, type RefusedPayoutDeps } from './recipient-refused.ts';
import { replacePart, type ReplacePartDeps } from './replace-dead-parts.ts';

/** What completing (or stepping) a paying order touches: its own reads and writes, and the steps it hands to. */
export type CompleteDeps = Pick<SettlementContext, 'db' | 'slotMs' | 'workerId' | 'leaseSeconds' | 'log' | 'clock' | 'faults'> & RefundDeps & RefusedPayoutDeps & ReplacePartDeps;

/** An order's transactions of one kind by part (a part's attempts, oldest first). */
function byPart<T extends Transfer>(txs: T[]): Map<number, T[]> {
  const parts = new Map<number, T[]>();
  for (const t of txs) {
    const part = t.meta.part ?? 0;
    parts.set(part, [...(parts.get(part) ?? []), t]);
  }
  return parts;
}

const isLive = (t: Transfer): boolean => t.status === 'pending' || t.status === 'confirmed';

/**
 * "Every part has landed", written once: each part's live transfer (at most one at a time: a part is
 * replaced only when none is live) if every one of them is confirmed, else undefined.
 */
function landedParts(parts: Map<number, Transfer[]>): Transfer[] | undefined {
  const landed = [...parts.values()].map((list) => list.find(isLive));
  return landed.every((t) => t?.status === 'confirmed') ? (landed as Transfer[]) : undefined;
}

/** The order's record of its landed transfers. */
function transfersOf(landed: Transfer[], now: string): { signature: string; amount: string; confirmedAt: string }[] {
  return landed.map((t) => ({ signature: t.signature, amount: t.amount.toString(), confirmedAt: t.meta.confirmedAt ?? now }));
}

/** Drives `sending`/`refunding`: replaces dead transactions, completes when every part has landed. */
export async function advancePayout(ctx: CompleteDeps, o: OrderRecord): Promise<NextLook> {
  const kind = o.status === STATUS.sending ? 'payout' : 'refund';
  // Refunds of funds sent after the deposit (meta.late) are their own business, not this order's refund.
  const txs = (await chainTxsOfOrder<'payout' | 'refund'>(ctx.db, o.id, kind)).filter((t) => !t.meta.late);
  if (kind === 'refund' && txs.length === 0) return startRefund(ctx, o);
  // A recipient the chain refuses is refunded, not paid again (the refund starts at the next step).
  if (kind === 'payout' && (await refundRefusedPayout(ctx, o, txs as ChainTxOf<'payout'>[]))) return { delayMs: 0 };
  const parts = byPart(txs);
  for (const [part, list] of parts) if (!list.some(isLive)) await replacePart(ctx, o, list[list.length - 1]!, part);
  const landed = landedParts(parts);
  if (!landed) return { delayMs: SETTLE_FALLBACK_SLOTS * ctx.slotMs };
  const transfers = transfersOf(landed, ctx.clock.date().toISOString());
  ctx.faults.reach('payout-confirmed');
  // The final move and its fee booking commit together: a crash between them would lose the fee.
  if (kind === 'payout') {
    // The batch path's writer with a batch of one, leased by this step.
    const completed = await completePayouts(ctx.db, [{ id: o.id, payouts: transfers, movement: feeMovement(o) }], true);
    if (completed.size > 0) observeCompleted([o], ctx.clock.now());
  } else {
    const total = landed.reduce((s, t) => s + t.amount, 0n);
    const reason = o.failureReason ?? 'undeliverable';
    await allOrNothing(ctx.db, async (tx) => {
      if (!(await finishRefund(tx, o.id, { signature: landed[0]!.signature, amount: total.toString(), reason }))) return false;
      const deposited = BigInt(o.deposit?.amount ?? '0');
      await recordMovement(tx, `fees:${o.trackingId}`, 'fee_income', refundFeeLegs(o, deposited, total), o.id);
      return true;
    });
  }
  return {};
}

/**
 * `sending → completed` for every given order all of whose payout parts have landed, in one statement.
 * Returns the orders it completed; the others (leased elsewhere, a part to replace) go the per-order way.
 */
export async function completeOrders(ctx: Pick<SettlementContext, 'db' | 'clock' | 'faults'>, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const [orders, txs] = await Promise.all([ordersByIds(ctx.db, orderIds), chainTxsOfOrders(ctx.db, orderIds, 'payout')]);
  const byOrder = new Map<string, Transfer[]>();
  for (const t of txs) byOrder.set(t.orderId!, [...(byOrder.get(t.orderId!) ?? []), t]);
  const items: PayoutCompletion[] = [];
  const now = ctx.clock.date().toISOString();
  for (const o of orders) {
    if (o.status !== STATUS.sending) continue;
    const parts = byPart(byOrder.get(o.id) ?? []);
    const landed = parts.size === 0 ? undefined : landedParts(parts);
    if (landed) items.push({ id: o.id, payouts: transfersOf(landed, now), movement: feeMovement(o) });
  }
  if (items.length === 0) return new Set();
  ctx.faults.reach('payout-confirmed');
  const completed = await completePayouts(ctx.db, items);
  observeCompleted(orders.filter((o) => completed.has(o.id)), ctx.clock.now());
  return completed;
}

/**
 * Claims one order (the usual lease) and, when it is `sending` or `refunding`, runs its step at once,
 * so a landed payout completes its order without queueing behind the order loop's batches.
 * Returns false when another step holds the order.
 */
export async function stepPayingOrder(ctx: CompleteDeps, orderId: string): Promise<boolean> {
  const o = await claimOrder(ctx.db, orderId, ctx.workerId, ctx.leaseSeconds);
  if (!o) return false;
  try {
    const next = STATUS_HANDLING[o.status].step === 'advancePayout' ? await advancePayout(ctx, o) : { delayMs: 0 };
    await releaseOrder(ctx.db, o.id, ctx.workerId, next);
  } catch (e) {
    ctx.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
    await releaseOrder(ctx.db, o.id, ctx.workerId, { afterError: true }).catch(() => {});
  }
  return true;
}
