import type { Queryable } from '../db.ts';
import { toOrder, type OrderRecord, type OrderRow } from '../orders-store.ts';
import { statusesSql } from '../settlement/final-statuses.ts';

/**
 * Final orders with a deposit and no receipt yet, oldest first (the partial index orders_unreceipted); an
 * order released with its class only once its release is counted (countLandedReleases, issue 54).
 */
export async function unreceiptedOrders(db: Queryable, limit: number): Promise<OrderRecord[]> {
  const { rows } = await db.query<OrderRow>(
    `SELECT * FROM orders WHERE receipt_signed_at IS NULL AND status IN ${statusesSql('receipted')}
       AND (class_released_at IS NULL OR class_landed_size IS NOT NULL)
     ORDER BY id LIMIT $1`,
    [limit],
  );
  return rows.map(toOrder);
}
