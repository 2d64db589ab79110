import type { Queryable } from '../db.ts';

/**
 * Marks a landed sweep's late refunds recorded (in the transaction that records them); false when it
 * was marked already.
 */
export async function markLateRefunded(tx: Queryable, sweepTxId: string): Promise<boolean> {
  const marked = await tx.query(`UPDATE chain_txs SET meta = meta || '{"lateRefunded": true}'::jsonb WHERE id = $1 AND NOT (meta ? 'lateRefunded') RETURNING id`, [sweepTxId]);
  return marked.rows.length > 0;
}
