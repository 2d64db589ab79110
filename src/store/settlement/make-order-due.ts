import type { Queryable } from '../db.ts';

/** Makes an order due now (a landed transaction of it wants its step sooner than its next run). */
export async function makeOrderDue(db: Queryable, orderId: string): Promise<void> {
  await db.query('UPDATE orders SET next_run_at = now() WHERE id = $1', [orderId]);
}
