import type { Queryable } from '../db.ts';

/**
 * Marks a landed sweep's late refunds recorded (in the transaction that records them); false when it
 * was marked already.
 */
export async function markLateRefunded(tx: Queryable, sweepTxId: string): Promise<boolean> {
  const marked = await tx.query(`UPDATE chain_txs SET meta = meta || '{"lateRefunded": true}'::jsonb WHERE id = $1 AND NOT (meta ? 'lateRefunded') RETURNING id`, [sweepTxId]);
  return marked.rows.length > 0;
}

/** Whether refunds of a sweep's late items are recorded (parts 'late:<sweep signature>:<n>'). */
export async function lateRefundsExist(q: Queryable, sweepSignature: string): Promise<boolean> {
  // The first LIKE names the partial index (migration 008) the prefix lookup uses.
  const { rows } = await q.query(`SELECT 1 FROM chain_txs WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' AND meta ->> 'part' LIKE $1 LIMIT 1`, [`late:${sweepSignature}:%`]);
  return rows.length > 0;
}

/** Landed sweeps with late items whose refunds were never recorded, oldest first (their chain_txs ids). */
export async function unrefundedLateSweeps(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string | number }>(
    `SELECT id FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed' AND meta -> 'items' @> '[{"late": true}]'::jsonb
         AND NOT (meta ? 'lateRefunded')
       ORDER BY id LIMIT 50`,
  );
  return rows.map((r) => String(r.id));
}
