import type { Queryable } from '../db.ts';

/** The payout due time drawn for an order, if one was. */
export async function payoutDueAt(db: Queryable, orderId: string): Promise<Date | null> {
  return (await payoutDueTimes(db, [orderId])).get(orderId) ?? null;
}

/** The payout due times of orders, by id (one read for the order loop's batch); null where none was drawn. */
export async function payoutDueTimes(db: Queryable, orderIds: string[]): Promise<Map<string, Date | null>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date | null }>('SELECT id, payout_due_at FROM orders WHERE id = ANY($1::bigint[])', [orderIds]);
  return new Map(rows.map((r) => [String(r.id), r.payout_due_at]));
}
