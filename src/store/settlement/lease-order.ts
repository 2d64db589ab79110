import type { Queryable } from '../db.ts';

/**
 * Renews this worker's lease on an order while it is still in `status` and nobody else holds it: taken
 * in the transaction that records a payout or refund of the order, so the status it was planned for
 * still stands when the record commits, and the watchdog (transitionOrder `idle`) cannot fail it meanwhile.
 */
export async function leaseOrder(tx: Queryable, id: string, status: string, workerId: string, leaseSeconds: number): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE orders SET locked_by = $3, locked_until = now() + make_interval(secs => $4)
     WHERE id = $1 AND status = $2 AND (locked_by = $3 OR locked_until IS NULL OR locked_until < now())
     RETURNING id`,
    [id, status, workerId, leaseSeconds],
  );
  return rows.length > 0;
}
