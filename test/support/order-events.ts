/**
 * Awaiting an order's transition on the order-changed channel (every status write notifies it, with the
 * tracking id): a test waits for the event itself, not for a sleep or a 100 ms poll of GET /status.
 */
import type { Db } from '../../src/store/db.ts';
import { ORDER_CHANGED_CHANNEL } from '../../src/store/order-transitions.ts';
import { getOrderByTrackingId, type OrderRecord } from '../../src/store/orders-store.ts';

/** Resolves with the order once it is in one of `statuses` (now, or at a notified change); rejects at the deadline. */
export async function untilStatus(db: Db, trackingId: string, statuses: readonly string[], timeoutMs: number): Promise<OrderRecord> {
  let settle!: (o: OrderRecord | Error) => void;
  const outcome = new Promise<OrderRecord | Error>((r) => (settle = r));
  let last: OrderRecord | null = null;
  const look = () =>
    void getOrderByTrackingId(db, trackingId).then((o) => {
      last = o;
      if (o && statuses.includes(o.status)) settle(o);
    }, (e: unknown) => settle(e as Error));
  const unlisten = await db.listen(ORDER_CHANGED_CHANNEL, (changed) => changed === trackingId && look());
  const timer = setTimeout(() => settle(new Error(`${trackingId} did not reach ${statuses.join('|')} within ${timeoutMs} ms; last ${last?.status ?? 'unread'}`)), timeoutMs);
  // Read once after listening: a change before the listener was up is not missed.
  look();
  try {
    const o = await outcome;
    if (o instanceof Error) throw o;
    return o;
  } finally {
    clearTimeout(timer);
    await unlisten();
  }
}
