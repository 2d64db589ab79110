import { forgetClaimedIdentities } from '../../store/deposit-identities-store.ts';
import { purgeIdempotencyKeys } from '../../store/idempotency-store.ts';
import { purgeDepositHints } from '../../store/orders-store.ts';
import { failOrder } from '../../store/settlement/fail-order.ts';
import { stuckOrders } from '../../store/settlement/stuck-orders.ts';
import type { SettlementContext } from '../context.ts';
import { runStep, type Step } from '../step.ts';
import { WATCHDOG_START_GRACE_MS } from '../timing.ts';
import type { OrderStatus } from '../../domain/order-state.ts';

/** What the watchdog touches. */
export type WatchdogDeps = Pick<SettlementContext, 'db' | 'alert' | 'clock'>;

type Stuck = { id: string; trackingId: string; status: OrderStatus };

/** Each stuck order to fail (if idle), with its reason. */
type WatchdogPlan = (Stuck & { failureReason: string })[];

/**
 * Maintenance and the watchdog: nothing stays non-final forever; failing keeps funds where they are and
 * alerts. Not in a worker's first minutes: orders that waited out an outage are paid by its catch-up,
 * not failed. Only minutes, so a worker that keeps restarting still gets its stuck orders reported.
 */
export class Watchdog implements Step<WatchdogDeps, Stuck[], null, WatchdogPlan> {
  readonly name = 'watchdog';
  /** Stuck orders the watchdog left alone (a transaction of theirs is live), reported once each. */
  private readonly stuckInFlight = new Set<string>();

  constructor(
    private readonly ctx: WatchdogDeps,
    private readonly stuckAfterMs: number,
    /** When this worker started (ms since the epoch). */
    private readonly startedAt: () => number,
  ) {}

  async tick(): Promise<void> {
    await purgeIdempotencyKeys(this.ctx.db);
    await purgeDepositHints(this.ctx.db);
    await forgetClaimedIdentities(this.ctx.db);
    await runStep(this.ctx, this);
  }

  /** The stuck orders (a read: the compare-and-set in commit is the claim), none in the start grace. */
  async claim(ctx: WatchdogDeps): Promise<{ claimed: Stuck[]; reads: null } | null> {
    if (ctx.clock.now() - this.startedAt() < Math.min(this.stuckAfterMs, WATCHDOG_START_GRACE_MS)) return null;
    const stuck = await stuckOrders(ctx.db, this.stuckAfterMs);
    for (const id of this.stuckInFlight) if (!stuck.some((r) => r.id === id)) this.stuckInFlight.delete(id);
    return { claimed: stuck, reads: null };
  }

  plan(stuck: Stuck[]): WatchdogPlan {
    return stuck.map((r) => ({ ...r, failureReason: `stuck_in_${r.status}` }));
  }

  async commit(ctx: WatchdogDeps, plan: WatchdogPlan): Promise<number> {
    let failed = 0;
    for (const r of plan) {
      // Never while a worker holds it or a payout or refund of it is pending or landed: "funds held" must be true.
      if (await failOrder(ctx.db, r.id, r.status, r.failureReason, { idle: true })) {
        failed++;
        ctx.alert('order_stuck_failed', { trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck; moved to failed, funds held');
      } else if (!this.stuckInFlight.has(r.id)) {
        this.stuckInFlight.add(r.id);
        ctx.alert('order_stuck_in_flight', { trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck with a payout or refund in flight or landed (or held by a worker); left as it is');
      }
    }
    return failed;
  }
}
