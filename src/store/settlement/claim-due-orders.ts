import type { Queryable } from '../db.ts';
import { toOrder, type OrderRecord, type OrderRow } from '../orders-store.ts';
import { FINAL } from './final-statuses.ts';

/**
 * Claims due orders for one worker: a single UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)
 * RETURNING, with a lease, so several workers share the work and a killed worker's orders come back
 * when its lease runs out. The claimed rows come back from the same statement (the claim is the worker's
 * hottest path; the worker never reads an order's history).
 */
export function claimDueOrders(db: Queryable, workerId: string, limit: number, leaseSeconds: number): Promise<OrderRecord[]> {
  return claimDue(db, `status NOT IN ${FINAL}`, workerId, limit, leaseSeconds);
}

/** The claim of due orders whose status `statusFilter` admits (claimDuePayouts narrows it to the orders paid next). */
export async function claimDue(db: Queryable, statusFilter: string, workerId: string, limit: number, leaseSeconds: number): Promise<OrderRecord[]> {
  // In the order they fell due, ties by id: RETURNING gives rows in the table's physical order, which a restored or
  // reused store changes, and the order a batch is stepped in decides which of them draws what (a pool's choice).
  const { rows } = await db.query<OrderRow>(
    `WITH claimed AS (
       UPDATE orders SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM orders
         WHERE ${statusFilter} AND next_run_at <= now() AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_run_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING *)
     SELECT * FROM claimed ORDER BY next_run_at, id`,
    [workerId, limit, leaseSeconds],
  );
  return rows.map(toOrder);
}
