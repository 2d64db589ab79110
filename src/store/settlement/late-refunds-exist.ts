import type { Queryable } from '../db.ts';

/** Whether refunds of a sweep's late items are recorded (parts 'late:<sweep signature>:<n>'). */
export async function lateRefundsExist(q: Queryable, sweepSignature: string): Promise<boolean> {
  // The first LIKE names the partial index (migration 008) the prefix lookup uses.
  const { rows } = await q.query(`SELECT 1 FROM chain_txs WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' AND meta ->> 'part' LIKE $1 LIMIT 1`, [`late:${sweepSignature}:%`]);
  return rows.length > 0;
}
