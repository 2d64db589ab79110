import type { Queryable } from '../store/db.ts';
import { GroupCommit, type CommitDelay, type Queued } from '../support/group-commit.ts';
import type { Clock } from '../support/clock.ts';
import { insertOrdersWithNewKeys, insertOrderWithNewKey, type InsertOrderResult, type NewOrderWithKey } from '../store/orders-store.ts';

/** PGlite runs one statement at a time: one batch in flight lets the next one grow meanwhile. */
export function insertBatchesInFlight(kind: 'pglite' | 'postgres'): number {
  return kind === 'pglite' ? 1 : 4;
}

/**
 * Orders arriving 10 ms apart or closer (100 a second) wait up to 3 ms to share a statement: at 500 orders a
 * second on PGlite most statements carried one order (1.05 ms each) where four took 2.1 ms (issue 56). A quiet
 * store adds nothing: a lone order after a pause goes at once. A full batch (maxBatch) goes without waiting.
 */
export const ORDER_COMMIT_DELAY: Omit<CommitDelay, 'flushAt'> = { ms: 3, whenWithinMs: 10 };

type Outcome = InsertOrderResult | { kind: 'key_taken' };
type Pending = Queued<NewOrderWithKey, Outcome>;

/**
 * Group commit (GroupCommit) for new orders: while one batch is in the database, the orders that arrive queue up and
 * go together in the next statement. On PGlite a statement's fixed cost is most of an order insert, so
 * throughput grows with load instead of latency; in-flight database work stays bounded (`maxInFlight`).
 */
export class OrderInsertBatcher extends GroupCommit<NewOrderWithKey, Outcome> {
  constructor(
    private readonly db: Queryable,
    maxInFlight: number,
    clock: Clock,
    private readonly maxBatch = 64,
    delay: Omit<CommitDelay, 'flushAt'> | undefined = ORDER_COMMIT_DELAY,
  ) {
    super(maxInFlight, clock, delay && { ...delay, flushAt: maxBatch });
  }

  insert(item: NewOrderWithKey): Promise<Outcome> {
    return this.submit(item);
  }

  /** Up to maxBatch orders with distinct idempotency keys and quotes; duplicates wait for a later batch. */
  protected take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const keys = new Set<string>();
    const quotes = new Set<string>();
    for (const p of this.queue) {
      const key = `${p.item.order.accountId}\u0000${p.item.key}`;
      if (batch.length >= this.maxBatch || keys.has(key) || quotes.has(p.item.order.quoteKey)) rest.push(p);
      else {
        keys.add(key);
        quotes.add(p.item.order.quoteKey);
        batch.push(p);
      }
    }
    this.queue = rest;
    return batch;
  }

  protected async run(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const { created, refused } = await insertOrdersWithNewKeys(this.db, batch.map((p) => p.item));
        for (const p of batch) {
          const id = created.get(p.item.order.trackingId);
          const hits = refused.get(p.item.order.trackingId);
          p.resolve(hits ? { kind: 'deposit_address', addresses: hits } : id === undefined ? { kind: 'key_taken' } : { kind: 'created', id });
        }
        return;
      } catch {
        // One order's failure (a quote already used) fails the statement: settle each on its own.
      }
    }
    for (const p of batch) {
      await insertOrderWithNewKey(this.db, p.item.order, { ...p.item, responseStatus: 200 }).then(p.resolve, p.reject);
    }
  }
}
