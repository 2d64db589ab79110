import type { OrderStatus } from '../../domain/order-state.ts';
import { statusesSql } from './final-statuses.ts';
import type { Queryable } from '../db.ts';

/**
 * Orders past deposit that nothing moved for `stuckAfterMs`, counted from their last change or, while a
 * privacy delay holds the payout, from when it fell due: an order waiting for its payout time is not stuck,
 * nor is one `held` for an operator (docs/spec.md §12: only the operator's resolution moves it).
 */
export async function stuckOrders(db: Queryable, stuckAfterMs: number): Promise<{ id: string; trackingId: string; status: OrderStatus }[]> {
  const { rows } = await db.query<{ id: string | number; tracking_id: string; status: OrderStatus }>(
    `SELECT id, tracking_id, status FROM orders WHERE status IN ${statusesSql('watchdogMayAct')}
       AND GREATEST(updated_at, coalesce(payout_due_at, updated_at)) < now() - make_interval(secs => $1::double precision / 1000)`,
    [stuckAfterMs],
  );
  return rows.map((r) => ({ id: String(r.id), trackingId: r.tracking_id, status: r.status }));
}
