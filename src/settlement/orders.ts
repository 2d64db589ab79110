import type { OrderRecord } from '../store/orders-store.ts';
import { claimDueOrders } from '../store/settlement/claim-due-orders.ts';
import { claimDuePayouts } from '../store/settlement/claim-due-payouts.ts';
import { releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import type { NextLook, SettlementContext } from './context.ts';
import { ORDER_BATCH, ORDER_BATCHES_IN_FLIGHT, PAYOUT_BATCH } from './timing.ts';
import { wakeAtSoonest } from './wake-at-due.ts';
import { advancePayout, type CompleteDeps } from './steps/complete.ts';
import { confirmFundedOrders, type WorkerConfirmDeps } from './confirm-funded-orders.ts';
import { confirmOrExpire, decideDeposit, readDeposits, type DepositMove, type DepositReads } from './steps/confirm-or-expire.ts';
import { payOrRefund, payReads, type PayOrRefundDeps, type PayReads } from './steps/pay-or-refund.ts';
import { STATUS_HANDLING, STATUS_TRAITS, type OrderStep } from '../domain/order-state.ts';

/**
 * What the order loop touches: its claims and releases, and every order step it dispatches to (the
 * deposit steps' own parameter types: they narrow this as they narrow).
 */
export type OrderLoopDeps = Pick<SettlementContext, 'db' | 'workerId' | 'leaseSeconds' | 'running' | 'log' | 'foreign'> &
  Parameters<typeof readDeposits>[0] &
  WorkerConfirmDeps &
  Parameters<typeof confirmOrExpire>[0] &
  PayOrRefundDeps &
  CompleteDeps;

/**
 * The payout loop's pass: due orders that are paid next, claimed apart from the rest (claimDuePayouts), their
 * batches stepped beside the loop rather than awaited, so payouts falling due a moment later (the next wave of a
 * burst, woken at their due time) are claimed then, not after this pass's batches are all recorded and sent.
 */
export async function payoutTick(ctx: OrderLoopDeps): Promise<number> {
  let total = 0;
  for (;;) {
    // As many as one payout batch records: a burst's due payouts in one claim and one batch's reads, where 64 at a
    // time made four claims in a row and the last of them 50-80 ms late (PostgreSQL, two workers).
    const orders = await claimDuePayouts(ctx.db, ctx.workerId, PAYOUT_BATCH, ctx.leaseSeconds);
    total += orders.length;
    // stepBatch never throws; the runner's stop waits for what it detached.
    if (orders.length > 0) ctx.detach(stepBatch(ctx, orders));
    if (orders.length < PAYOUT_BATCH || !ctx.running()) break;
  }
  return total;
}

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

/** What the per-order steps get of their batch: its deposit reads, and each awaiting order's decision on them. */
interface BatchLooks {
  deposits: DepositReads;
  moves: Map<string, DepositMove>;
  /** The batch's reads for the orders it pays or refunds (null: none in it, or the reads failed: each reads for itself). */
  pay: PayReads | null;
}

/**
 * Steps claimed orders; never throws (a failed step releases its order with back-off). Orders whose
 * deposit is visible at `confirmed` go to the one confirmation (confirmFundedOrders) together; the rest
 * step one by one, and every release is one statement.
 */
async function stepBatch(ctx: OrderLoopDeps, orders: OrderRecord[]): Promise<void> {
  const watching = orders.filter((o) => STATUS_TRAITS[o.status].awaitsDeposit);
  const paying = orders.filter((o) => STATUS_HANDLING[o.status].step === 'payOrRefund');
  // The payouts' store reads go beside the deposits' chain reads: a due payout never waits for another order's balance.
  const payRead = paying.length > 1 ? payReads(ctx, paying).catch((e: unknown) => (ctx.log({ err: e }, 'pay reads failed'), null)) : Promise.resolve(null);
  let deposits: DepositReads;
  try {
    deposits = await readDeposits(ctx, watching);
  } catch (e) {
    ctx.log({ err: e }, 'deposit reads failed');
    await payRead;
    await releaseOrders(ctx.db, ctx.workerId, orders.map((o) => ({ id: o.id, afterError: true }))).catch(() => {});
    return;
  }
  // (A balance found to be someone else's is no deposit: its order goes to the per-order step.)
  const pay = await payRead;
  const looks: BatchLooks = { deposits, moves: new Map(), pay };
  const confirmed: OrderRecord[] = [];
  for (const o of watching) {
    const next = decideDeposit(ctx, o, deposits);
    if (next.kind === 'confirm') confirmed.push(o);
    else looks.moves.set(o.id, next);
  }
  const confirming = new Set(confirmed.map((o) => o.id));
  const releases: Release[] = [];
  await Promise.all([
    confirmFundedOrders(ctx, confirmed, deposits.confirmed),
    ...orders
      .filter((o) => !confirming.has(o.id))
      .map(async (o) => {
        try {
          releases.push({ id: o.id, ...(await step(ctx, o, looks)) });
        } catch (e) {
          ctx.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
          releases.push({ id: o.id, afterError: true });
        }
      }),
  ]);
  await releaseOrders(ctx.db, ctx.workerId, releases).catch((e: unknown) => ctx.log({ err: e }, 'order release failed'));
  wakeAtSoonest(ctx, releases);
}

/** The order loop's steps, by the name each status's handling gives (STATUS_HANDLING, domain/order-state.ts). */
const STEPS: Readonly<Record<OrderStep, (ctx: OrderLoopDeps, o: OrderRecord, looks: BatchLooks) => Promise<NextLook>>> = {
  confirmOrExpire: (ctx, o, looks) => confirmOrExpire(ctx, o, looks.moves.get(o.id)!, looks.deposits),
  payOrRefund: (ctx, o, looks) => payOrRefund(ctx, o, looks.pay ?? undefined),
  advancePayout: (ctx, o) => advancePayout(ctx, o),
};

/** One step of the state machine; returns when to look at the order again. */
async function step(ctx: OrderLoopDeps, o: OrderRecord, looks: BatchLooks): Promise<NextLook> {
  const name = STATUS_HANDLING[o.status].step;
  return name === null ? {} : STEPS[name](ctx, o, looks);
}
