import { isUniqueViolation, type Queryable } from '../store/db.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import { startPayouts, type PayableStatus } from '../store/settlement/start-payouts.ts';
import type { PlannedTransfer, Pools } from './pools.ts';
import { PAYOUT_BATCH, SETTLE_FALLBACK_SLOTS } from './timing.ts';

type PayoutJob = {
  o: OrderRecord;
  from: PayableStatus;
  resolve: (r: { planned: PlannedTransfer | null; ok: boolean }) => void;
  reject: (e: unknown) => void;
};

/** What the payout queue touches: the pools (lock, reads, plans), the store, this worker, a slot's length. */
export interface PayoutQueuePort {
  readonly pools: Pick<Pools, 'exclusive' | 'reads' | 'plan'>;
  readonly db: Queryable;
  readonly workerId: string;
  readonly slotMs: number;
}

/**
 * An order's payout planned and recorded (its transactions, then `sending`, released to its next look),
 * batched: the orders that queue up while a batch is being recorded go together in the next one, inside
 * one `exclusive` section with one read of pending outflows and pool balances; each order still gets its
 * own statement (startPayouts with a batch of one), so one order's conflict is not another's.
 */
export class PayoutQueue {
  private readonly queue: PayoutJob[] = [];
  private batches: Promise<void> | null = null;

  constructor(private readonly ctx: PayoutQueuePort) {}

  record(o: OrderRecord, from: PayableStatus): Promise<{ planned: PlannedTransfer | null; ok: boolean }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ o, from, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.batches || this.queue.length === 0) return;
    this.batches = this.ctx.pools
      .exclusive(() => this.recordBatches())
      .finally(() => {
        this.batches = null;
        this.kick();
      });
  }

  private async recordBatches(): Promise<void> {
    const ctx = this.ctx;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, PAYOUT_BATCH);
      try {
        const shared = await ctx.pools.reads([...new Set(batch.map((j) => j.o.destinationAssetId))]);
        const plans = await Promise.all(
          batch.map((j) => ctx.pools.plan(j.o, 'payout', j.o.destinationAssetId, j.o.recipient, j.o.amountOut, {}, ctx.db, shared).catch((e: unknown) => ({ error: e }))),
        );
        // Every record of the batch is committed (or failed) before the section ends.
        await Promise.all(
          batch.map(async (j, i) => {
            const planned = plans[i]!;
            if (planned !== null && 'error' in planned) return j.reject(planned.error);
            if (planned === null) return j.resolve({ planned: null, ok: false });
            try {
              // The batch path's own writer, with a batch of one (all or nothing: a record never outlives a
              // failed move, e.g. the watchdog failed the order meanwhile). A live payout of the same order
              // and part, or the same bytes, recorded already: not moved.
              const moved = await startPayouts(ctx.db, ctx.workerId, [planned], SETTLE_FALLBACK_SLOTS * ctx.slotMs, j.from).catch((e: unknown) => {
                if (isUniqueViolation(e)) return new Set<string>();
                throw e;
              });
              const ok = moved.has(j.o.id);
              j.resolve({ planned, ok });
            } catch (e) {
              j.reject(e);
            }
          }),
        );
      } catch (e) {
        for (const j of batch) j.reject(e);
      }
    }
  }
}
