import type { Queryable } from '../db.ts';
import { toOrder, type OrderRecord, type OrderRow } from '../orders-store.ts';
import { FINAL } from './final-statuses.ts';

/** Claims one order (same lease as claimDueOrders) if it is not final and nobody holds it; null otherwise. */
export async function claimOrder(db: Queryable, id: string, workerId: string, leaseSeconds: number): Promise<OrderRecord | null> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders SET locked_by = $2, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id = $1 AND status NOT IN ${FINAL} AND (locked_until IS NULL OR locked_until < now())
     RETURNING *`,
    [id, workerId, leaseSeconds],
  );
  return rows[0] ? toOrder(rows[0]) : null;
}
