import type { Queryable } from '../db.ts';
import { toOrder, type OrderRecord, type OrderRow } from '../orders-store.ts';

/** Several orders by id, without their history (what the worker steps on). */
export async function ordersByIds(db: Queryable, ids: string[]): Promise<OrderRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<OrderRow>('SELECT * FROM orders WHERE id = ANY($1::bigint[])', [ids]);
  return rows.map(toOrder);
}
