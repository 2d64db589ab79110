import type { Queryable } from '../db.ts';
import { toOrder, type OrderRecord, type OrderRow } from '../orders-store.ts';
import { PAYABLE } from './final-statuses.ts';

/**
 * Claims due orders that are paid next (a deposit confirmed, or a swap done) for one worker: claimDueOrders'
 * statement narrowed to them, for the payout loop, so a payout falling due is claimed at its due time and is never
 * in a batch behind other orders' deposit reads and confirmations (docs/performance.md, "Settlement at the raw
 * loop's pace"). Both loops claim with SKIP LOCKED: an order is stepped by whichever claims it first.
 */
export async function claimDuePayouts(db: Queryable, workerId: string, limit: number, leaseSeconds: number): Promise<OrderRecord[]> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM orders
       WHERE status IN ${PAYABLE} AND next_run_at <= now() AND (locked_until IS NULL OR locked_until < now())
       ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [workerId, limit, leaseSeconds],
  );
  return rows.map(toOrder);
}
