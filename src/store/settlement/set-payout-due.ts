import type { Queryable } from '../db.ts';

/** Sets the payout due time unless one is set already (the first draw wins); returns the one in force. */
export async function setPayoutDue(db: Queryable, id: string, at: Date): Promise<Date | null> {
  const { rows } = await db.query<{ payout_due_at: Date | null }>(
    'UPDATE orders SET payout_due_at = coalesce(payout_due_at, $2) WHERE id = $1 RETURNING payout_due_at',
    [id, at],
  );
  return rows[0]?.payout_due_at ?? null;
}
