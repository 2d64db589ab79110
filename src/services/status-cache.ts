import { createHash } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { getOrderByTrackingId, ORDER_CHANGED_CHANNEL } from '../store/orders-store.ts';
import { statusRecord } from './order-views.ts';
import type { Clock } from '../support/clock.ts';

export interface CachedStatus {
  accountId: string;
  /** The serialized response body `{ success, order }`. */
  json: string;
  etag: string;
}

const MAX_ENTRIES = 100_000;

/**
 * Status records served from memory. Every order change NOTIFYs its trackingId (same statement as the
 * change), and every API process evicts on it, so polling costs no database round trip yet never serves
 * a state older than the change. If the notification connection drops, everything is evicted; a TTL
 * bounds staleness should a notification ever be missed anyway.
 */
export class StatusCache {
  private readonly entries = new Map<string, CachedStatus & { at: number }>();
  private invalidations = 0;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 30_000,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(
      ORDER_CHANGED_CHANNEL,
      (trackingId) => {
        this.invalidations++;
        this.entries.delete(trackingId);
      },
      () => {
        this.invalidations++;
        this.entries.clear();
      },
    );
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }

  /**
   * The account's cached record while fresh, synchronously (the polling hot path needs no promise); else
   * undefined. Another account's entry is never a hit: its lookup reads the store as an unknown id's does, so
   * the answer's timing does not tell whether the id exists (issue 50).
   */
  peek(trackingId: string, accountId: string): CachedStatus | undefined {
    const hit = this.entries.get(trackingId);
    return hit && hit.accountId === accountId && this.clock.now() - hit.at < this.ttlMs ? hit : undefined;
  }

  /** The account's order's record, or null when the account has no order with this id (whoever else has one). */
  async get(trackingId: string, accountId: string): Promise<CachedStatus | null> {
    const hit = this.peek(trackingId, accountId);
    if (hit) return hit;
    const generation = this.invalidations;
    const order = await getOrderByTrackingId(this.db, trackingId, accountId);
    if (!order) return null;
    const json = JSON.stringify({ success: true, order: statusRecord(order) });
    const entry = { accountId: order.accountId, json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`, at: this.clock.now() };
    // A change notified while we were reading may postdate what we read: serve it, don't keep it.
    if (generation === this.invalidations) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(trackingId, entry);
    }
    return entry;
  }
}
