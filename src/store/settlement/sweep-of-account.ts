import type { Queryable } from '../db.ts';

/** Whether a sweep of this deposit account is pending, or (with `since`) was settled at or after `since`. */
export async function sweepOfAccount(db: Queryable, depositAccount: string, since?: Date): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', $1::text))
       AND (status = 'pending' OR updated_at >= $2::timestamptz) LIMIT 1`,
    [depositAccount, since ?? 'infinity'],
  );
  return rows.length > 0;
}
