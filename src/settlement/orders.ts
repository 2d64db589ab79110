import type { OrderRecord } from '../store/orders-store.ts';
import { claimDueOrders } from '../store/settlement/claim-due-orders.ts';
import { releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import type { NextLook, SettlementContext } from './context.ts';
import { ORDER_BATCH, ORDER_BATCHES_IN_FLIGHT } from './timing.ts';
import { wakeAtSoonest } from './wake-at-due.ts';
import { advancePayout, type CompleteDeps } from './steps/complete.ts';
import { confirmFundedOrders } from './confirm-funded-orders.ts';
import { confirmOrExpire, readDeposits, type DepositReads } from './steps/confirm-or-expire.ts';
import { payOrRefund, type PayOrRefundDeps } from './steps/pay-or-refund.ts';

/**
 * What the order loop touches: its claims and releases, and every order step it dispatches to (the
 * deposit steps' own parameter types: they narrow this as they narrow).
 */
export type OrderLoopDeps = Pick<SettlementContext, 'db' | 'workerId' | 'leaseSeconds' | 'running' | 'log' | 'foreign'> &
  Parameters<typeof readDeposits>[0] &
  Parameters<typeof confirmFundedOrders>[0] &
  Parameters<typeof confirmOrExpire>[0] &
  PayOrRefundDeps &
  CompleteDeps;

/**
 * Claims and steps due orders. While batches come back full (a burst), the next one is claimed without
 * waiting for the previous one to finish, up to ORDER_BATCHES_IN_FLIGHT at once.
 */
export async function orderTick(ctx: OrderLoopDeps): Promise<number> {
  let total = 0;
  const inflight = new Set<Promise<void>>();
  for (;;) {
    const orders = await claimDueOrders(ctx.db, ctx.workerId, ORDER_BATCH, ctx.leaseSeconds);
    total += orders.length;
    if (orders.length > 0) {
      const p: Promise<void> = stepBatch(ctx, orders).then(() => void inflight.delete(p));
      inflight.add(p);
    }
    if (orders.length < ORDER_BATCH || !ctx.running()) break;
    if (inflight.size >= ORDER_BATCHES_IN_FLIGHT) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  return total;
}

/**
 * Steps claimed orders; never throws (a failed step releases its order with back-off). Orders whose
 * deposit is confirmed go through confirmFundedOrders together; the rest step one by one, and every release
 * is one statement.
 */
async function stepBatch(ctx: OrderLoopDeps, orders: OrderRecord[]): Promise<void> {
  const watching = orders.filter((o) => o.status === 'awaiting_deposit' || o.status === 'deposit_detected');
  let deposits: DepositReads;
  try {
    deposits = await readDeposits(ctx, watching);
  } catch (e) {
    ctx.log({ err: e }, 'deposit reads failed');
    await releaseOrders(ctx.db, ctx.workerId, orders.map((o) => ({ id: o.id, afterError: true }))).catch(() => {});
    return;
  }
  // (A balance found to be someone else's goes to the per-order step, which treats it as no deposit.)
  const confirmed = watching.filter((o) => {
    const amount = deposits.confirmed.get(o.depositAccount)?.tokenAmount ?? 0n;
    return amount > 0n && !ctx.foreign.holds(o.id, amount);
  });
  const confirming = new Set(confirmed.map((o) => o.id));
  const releases: Release[] = [];
  await Promise.all([
    confirmFundedOrders(ctx, confirmed, deposits.confirmed),
    ...orders
      .filter((o) => !confirming.has(o.id))
      .map(async (o) => {
        try {
          releases.push({ id: o.id, ...(await step(ctx, o, deposits)) });
        } catch (e) {
          ctx.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
          releases.push({ id: o.id, afterError: true });
        }
      }),
  ]);
  await releaseOrders(ctx.db, ctx.workerId, releases).catch((e: unknown) => ctx.log({ err: e }, 'order release failed'));
  wakeAtSoonest(ctx, releases);
}

/** One step of the state machine; returns when to look at the order again. */
async function step(ctx: OrderLoopDeps, o: OrderRecord, deposits: DepositReads): Promise<NextLook> {
  switch (o.status) {
    case 'awaiting_deposit':
    case 'deposit_detected':
      return confirmOrExpire(ctx, o as OrderRecord & { status: typeof o.status }, deposits);
    case 'deposit_confirmed':
    case 'swapping':
      return payOrRefund(ctx, o);
    case 'sending':
    case 'refunding':
      return advancePayout(ctx, o);
    default:
      return {};
  }
}
