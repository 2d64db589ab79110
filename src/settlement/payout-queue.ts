import { isUniqueViolation, type Queryable } from '../store/db.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import { startPayouts, type PayableStatus } from '../store/settlement/start-payouts.ts';
import type { FaultPoints } from '../support/fault-points.ts';
import type { Clock } from '../support/clock.ts';
import type { Outbox } from './outbox.ts';
import type { PlanReads, PlannedTransfer, Pools } from './pools.ts';
import { PAYOUT_BATCH, PRESIGNED_TTL_MS, PRESIGN_READS_MAX_AGE_MS, SETTLE_FALLBACK_SLOTS } from './timing.ts';

type PayoutJob = {
  o: OrderRecord;
  from: PayableStatus;
  resolve: (r: { planned: PlannedTransfer | null; ok: boolean }) => void;
  reject: (e: unknown) => void;
};

/** What the payout queue touches: the pools (lock, reads, plans), the store, this worker, a slot's length, the sending. */
export interface PayoutQueuePort {
  readonly pools: Pick<Pools, 'exclusive' | 'reads' | 'plan' | 'reusable' | 'sections'>;
  readonly db: Queryable;
  readonly workerId: string;
  readonly slotMs: number;
  readonly outbox: Pick<Outbox, 'sendBatch'>;
  readonly faults: FaultPoints;
  readonly clock: Clock;
}

/** What signing an order's payout ahead needs of it (a payable order's fields, without the settlement context's types). */
export type PresignedOrder = Pick<OrderRecord, 'id' | 'trackingId' | 'txBlockhash' | 'destinationAssetId' | 'recipient' | 'amountOut'>;

/** How the presigned payouts of a run fared at their due time (the bench and the metrics read it). */
export interface PresignTally {
  signed: number;
  used: number;
  /** Signed again at due time, by why the presigned one could not go. */
  resigned: Record<string, number>;
}

/**
 * Orders' payouts planned, recorded and sent in batches (docs/performance.md, "Settlement at the raw
 * loop's pace"): the orders that queue up while a batch is being recorded go together in the next one,
 * inside one `exclusive` section with one read of pending outflows and pool balances, one statement
 * recording every payout and moving its order to `sending` (record-before-send), then one RPC batch
 * sending them. A payout signed ahead while its order waited for its due slot (`presign`) is used as
 * signed when it still holds (Pools.reusable), else signed afresh: it was never recorded, so never sent.
 */
export class PayoutQueue {
  private readonly queue: PayoutJob[] = [];
  private batches: Promise<void> | null = null;
  /** A batch is about to start (see kick). */
  private kicking = false;
  /** Payouts signed ahead, by order id, with when. Only this worker's memory: a crash loses them, harmlessly. */
  private readonly presigned = new Map<string, { planned: PlannedTransfer; at: number }>();
  /** Orders whose payouts are being signed ahead now, with that signing (a batch waits for it: see recordBatch). */
  private readonly presigning = new Map<string, Promise<void>>();
  /**
   * The last reads of pending outflows and pool balances, with what every batch since took of them: where a
   * presign chooses its pools, and what the next batch within a slot plans against (see batchReads).
   */
  private lastReads: { reads: PlanReads; assets: Set<string>; at: number; section: number } | null = null;
  readonly tally: PresignTally = { signed: 0, used: 0, resigned: {} };

  constructor(private readonly ctx: PayoutQueuePort) {}

  /** Records the order's payout and sends it; resolves once it was sent (or why not: no plan, or the order did not move). */
  record(o: OrderRecord, from: PayableStatus): Promise<{ planned: PlannedTransfer | null; ok: boolean }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ o, from, resolve, reject });
      this.kick();
    });
  }

  /**
   * Signs the payouts of orders that will be due shortly (a deposit just confirmed, paid at the floor), to be
   * used at their due time. No lock: nothing is recorded or reserved. Pools are chosen against the last
   * batch's reads when recent (checked again at use), else against a fresh read.
   */
  async presign(orders: PresignedOrder[]): Promise<void> {
    const now = this.ctx.clock.now();
    for (const [id, p] of this.presigned) if (now - p.at > PRESIGNED_TTL_MS) this.presigned.delete(id);
    // Once per order: a deposit confirmed again (a retried batch, another path) does not sign its payout a second time.
    orders = orders.filter((o) => !this.presigned.has(o.id) && !this.presigning.has(o.id));
    if (orders.length === 0) return;
    const signing = this.presignNow(orders, now).finally(() => {
      for (const o of orders) this.presigning.delete(o.id);
    });
    for (const o of orders) this.presigning.set(o.id, signing.catch(() => {}));
    await signing;
  }

  private async presignNow(orders: PresignedOrder[], now: number): Promise<void> {
    const assets = [...new Set(orders.map((o) => o.destinationAssetId))];
    const last = this.lastReads && now - this.lastReads.at <= PRESIGN_READS_MAX_AGE_MS && covers(this.lastReads, assets) ? this.lastReads.reads : await this.ctx.pools.reads(assets);
    const shared: PlanReads = { pending: last.pending, balances: last.balances, taken: new Map() };
    const plans = await Promise.all(
      orders.map((o) => this.ctx.pools.plan(o, 'payout', o.destinationAssetId, o.recipient, o.amountOut, {}, this.ctx.db, shared, { quiet: true }).catch(() => null)),
    );
    plans.forEach((p, i) => {
      if (!p) return;
      this.presigned.set(orders[i]!.id, { planned: p, at: now });
      this.tally.signed++;
    });
  }

  /** Payouts signed ahead and not yet used or dropped. */
  get presignedCount(): number {
    return this.presigned.size;
  }

  /**
   * Starts the next batch once this turn of the event loop is over: the steps of one claimed batch each ask to
   * record within the same turn, and went as a batch of one and then one of the rest (each batch a read and a
   * statement, one after the other).
   */
  private kick(): void {
    if (this.batches || this.kicking || this.queue.length === 0) return;
    this.kicking = true;
    setImmediate(() => {
      this.kicking = false;
      this.startBatch();
    });
  }

  private startBatch(): void {
    if (this.batches || this.queue.length === 0) return;
    const batch = this.queue.splice(0, PAYOUT_BATCH);
    this.batches = this.ctx.pools
      .exclusive(() => this.recordBatch(batch))
      .then(
        (recorded) => {
          // Sent outside the planning lock, while the next batch is being recorded.
          void this.send(batch, recorded);
        },
        (e: unknown) => {
          for (const j of batch) j.reject(e);
        },
      )
      .finally(() => {
        this.batches = null;
        this.kick();
      });
  }

  /** Plans (or takes the presigned payout of) each job and records the batch; returns each job's plan and whether its order moved. */
  private async recordBatch(batch: PayoutJob[]): Promise<{ planned: PlannedTransfer | null; ok: boolean; error?: unknown }[]> {
    const ctx = this.ctx;
    const shared = await this.batchReads([...new Set(batch.map((j) => j.o.destinationAssetId))]);
    // A payout still being signed ahead is waited for, up to a slot, not signed a second time beside it (a blockhash
    // not handed out may be a slot away for both: the simulator's burst went signed twice).
    const signing = batch.flatMap((j) => this.presigning.get(j.o.id) ?? []);
    if (signing.length > 0) await Promise.race([Promise.all(signing), ctx.clock.sleep(ctx.slotMs)]);
    // Presigned ones first, one at a time (each check counts what it takes); then the rest are planned.
    const plans: (PlannedTransfer | null | { error: unknown })[] = [];
    for (const j of batch) plans.push(await this.takePresigned(j.o, shared));
    await Promise.all(
      batch.map(async (j, i) => {
        if (plans[i]) return;
        plans[i] = await ctx.pools.plan(j.o, 'payout', j.o.destinationAssetId, j.o.recipient, j.o.amountOut, {}, ctx.db, shared).catch((e: unknown) => ({ error: e }));
      }),
    );
    const out = batch.map((_, i) => {
      const p = plans[i]!;
      return p !== null && 'error' in p ? { planned: null, ok: false, error: p.error } : { planned: p, ok: false };
    });
    // One statement per status paid from; one conflict (a live payout of the same order, or the same
    // bytes: the unique indexes) sends that status's batch to one statement per order, so one order's
    // conflict is not another's.
    for (const from of new Set(batch.map((j) => j.from))) {
      const idx = batch.flatMap((j, i) => (j.from === from && out[i]!.planned ? [i] : []));
      const moved = await this.start(idx.map((i) => out[i]!.planned!), from);
      for (const i of idx) out[i]!.ok = moved.has(batch[i]!.o.id);
    }
    if (out.some((r) => r.ok)) ctx.faults.reach('payout-recorded');
    return out;
  }

  /**
   * The reads a batch plans against. Within a slot of the last read, the same reads and what the batches since
   * took of them (`taken`: this worker records every payout it plans, and only under the lock): a balance read
   * then still counts every outflow not yet landed as pending then or taken since, and misses only what has
   * landed since (it takes, it never adds) and inflows, so it never counts on funds that are gone. A burst's
   * waves due a few ms apart read the chain once: each wave's read queued behind the last wave's send on the
   * chain's node, 80 ms of a 165 ms tail. Only when the batch before was the last to plan: a refund or a
   * partner payout planned between (its own section) took from the pools what `taken` does not know. Two
   * workers plan apart as before (each its own lock and its own reads). Called inside the lock.
   */
  private async batchReads(assets: string[]): Promise<PlanReads> {
    const now = this.ctx.clock.now();
    const section = this.ctx.pools.sections;
    const last = this.lastReads;
    if (last && last.section === section - 1 && now - last.at <= this.ctx.slotMs && covers(last, assets)) {
      last.section = section;
      return last.reads;
    }
    const reads = await this.ctx.pools.reads(assets);
    this.lastReads = { reads, assets: new Set(assets), at: this.ctx.clock.now(), section };
    return reads;
  }

  private async takePresigned(o: Pick<OrderRecord, 'id' | 'amountOut'>, shared: PlanReads): Promise<PlannedTransfer | null> {
    const p = this.presigned.get(o.id);
    if (!p) return null;
    this.presigned.delete(o.id);
    // A class release may have raised the order's amountOut since (one payout per release: store/settlement/release-classes.ts).
    const verdict = p.planned.amount !== o.amountOut ? 'amount_changed' : await this.ctx.pools.reusable(p.planned, shared);
    if (verdict === 'use') {
      this.tally.used++;
      return p.planned;
    }
    this.tally.resigned[verdict] = (this.tally.resigned[verdict] ?? 0) + 1;
    return null;
  }

  /** Records the payouts (one statement, or one per order after a conflict); the ids of the orders that moved. */
  private async start(txs: PlannedTransfer[], from: PayableStatus): Promise<Set<string>> {
    const ctx = this.ctx;
    const nextRunMs = SETTLE_FALLBACK_SLOTS * ctx.slotMs;
    if (txs.length === 0) return new Set();
    const all = await startPayouts(ctx.db, ctx.workerId, txs, nextRunMs, from).catch((e: unknown) => {
      if (isUniqueViolation(e) && txs.length > 1) return null;
      if (isUniqueViolation(e)) return new Set<string>();
      throw e;
    });
    if (all) return all;
    const moved = new Set<string>();
    for (const t of txs) {
      const one = await startPayouts(ctx.db, ctx.workerId, [t], nextRunMs, from).catch((e: unknown) => {
        if (isUniqueViolation(e)) return new Set<string>();
        throw e;
      });
      for (const id of one) moved.add(id);
    }
    return moved;
  }

  /** Sends the batch's recorded payouts in one RPC batch, then answers each job. */
  private async send(batch: PayoutJob[], recorded: { planned: PlannedTransfer | null; ok: boolean; error?: unknown }[]): Promise<void> {
    const wires = recorded.flatMap((r) => (r.ok && r.planned ? [{ signature: r.planned.signature, wire: r.planned.wire }] : []));
    try {
      // Never throws (what did not go is resent by the settle loop while its blockhash lives); a crash test's
      // fault point does, and each job's step unwinds with it, as when it sent its own payout.
      if (wires.length > 0) {
        await this.ctx.outbox.sendBatch(wires);
        this.ctx.faults.reach('payout-sent');
      }
    } catch (e) {
      for (const j of batch) j.reject(e);
      return;
    }
    batch.forEach((j, i) => {
      const r = recorded[i]!;
      if (r.error !== undefined) j.reject(r.error);
      else j.resolve({ planned: r.planned, ok: r.ok });
    });
  }
}

/** Whether reads of pool balances were made for every one of these assets. */
function covers(reads: { assets: ReadonlySet<string> }, assets: readonly string[]): boolean {
  return assets.every((a) => reads.assets.has(a));
}
