import { purgeIdempotencyKeys } from '../../store/idempotency-store.ts';
import { purgeDepositHints, transitionOrder } from '../../store/orders-store.ts';
import { stuckOrders } from '../../store/settlement/stuck-orders.ts';
import type { SettlementContext } from '../context.ts';
import { WATCHDOG_START_GRACE_MS } from '../timing.ts';

/** What the watchdog touches. */
export type WatchdogDeps = Pick<SettlementContext, 'db' | 'alert'>;

/**
 * Maintenance and the watchdog: nothing stays non-final forever; failing keeps funds where they are and
 * alerts. Not in a worker's first minutes: orders that waited out an outage are paid by its catch-up,
 * not failed. Only minutes, so a worker that keeps restarting still gets its stuck orders reported.
 */
export class Watchdog {
  /** Stuck orders the watchdog left alone (a transaction of theirs is live), reported once each. */
  private readonly stuckInFlight = new Set<string>();

  constructor(
    private readonly ctx: WatchdogDeps,
    private readonly stuckAfterMs: number,
    /** When this worker started (ms since the epoch). */
    private readonly startedAt: () => number,
  ) {}

  async tick(): Promise<void> {
    const ctx = this.ctx;
    await purgeIdempotencyKeys(ctx.db);
    await purgeDepositHints(ctx.db);
    if (Date.now() - this.startedAt() < Math.min(this.stuckAfterMs, WATCHDOG_START_GRACE_MS)) return;
    const stuck = await stuckOrders(ctx.db, this.stuckAfterMs);
    for (const id of this.stuckInFlight) if (!stuck.some((r) => r.id === id)) this.stuckInFlight.delete(id);
    for (const r of stuck) {
      // Never while a worker holds it or a payout or refund of it is pending or landed: "funds held" must be true.
      if (await transitionOrder(ctx.db, r.id, r.status as never, 'failed', { failureReason: `stuck_in_${r.status}` }, { idle: true })) {
        ctx.alert('order_stuck_failed', { trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck; moved to failed, funds held');
      } else if (!this.stuckInFlight.has(r.id)) {
        this.stuckInFlight.add(r.id);
        ctx.alert('order_stuck_in_flight', { trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck with a payout or refund in flight or landed (or held by a worker); left as it is');
      }
    }
  }
}
