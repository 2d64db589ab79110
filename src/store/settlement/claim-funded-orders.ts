import type { Queryable } from '../db.ts';
import { statusesSql } from './final-statuses.ts';

/**
 * Leases the orders still awaiting their deposit that the caller holds or nobody holds (SKIP LOCKED, the
 * confirmation's own rule: confirm-deposits.ts), before the deposit watch looks up their deposits'
 * transactions: with two workers each watch saw every deposit, and both read every origin (two
 * `getTransaction` per order) for one confirmation to win. Returns the ids this holder now holds.
 */
export async function claimFundedOrders(db: Queryable, ids: string[], holder: string, leaseSeconds: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE orders o SET locked_by = $2, locked_until = now() + make_interval(secs => $3)
     WHERE o.id IN (
       SELECT id FROM orders
       WHERE id = ANY($1::bigint[]) AND status IN ${statusesSql('awaitsDeposit')}
         AND (locked_by = $2 OR locked_until IS NULL OR locked_until < now())
       FOR UPDATE SKIP LOCKED)
     RETURNING o.id`,
    [ids, holder, leaseSeconds],
  );
  return new Set(rows.map((r) => String(r.id)));
}
