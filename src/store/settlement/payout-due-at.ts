import type { Queryable } from '../db.ts';

/** The payout due time drawn for an order, if one was. */
export async function payoutDueAt(db: Queryable, orderId: string): Promise<Date | null> {
  const { rows } = await db.query<{ payout_due_at: Date | null }>('SELECT payout_due_at FROM orders WHERE id = $1', [orderId]);
  return rows[0]?.payout_due_at ?? null;
}
