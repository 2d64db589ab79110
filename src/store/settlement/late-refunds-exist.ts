import type { Queryable } from '../db.ts';

/** Whether refunds of a sweep's late items are recorded (meta.lateOf, the sweep's signature). */
export async function lateRefundsExist(q: Queryable, sweepSignature: string): Promise<boolean> {
  // `meta ? 'lateOf'` names the partial index (migration 016) the lookup uses.
  const { rows } = await q.query(`SELECT 1 FROM chain_txs WHERE kind = 'refund' AND meta ? 'lateOf' AND meta ->> 'lateOf' = $1 LIMIT 1`, [sweepSignature]);
  return rows.length > 0;
}
