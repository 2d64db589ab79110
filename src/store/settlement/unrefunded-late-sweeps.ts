import type { Queryable } from '../db.ts';

/** Landed sweeps with late items whose refunds were never recorded, oldest first (their chain_txs ids). */
export async function unrefundedLateSweeps(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string | number }>(
    `SELECT id FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed' AND meta -> 'items' @> '[{"late": true}]'::jsonb
         AND NOT (meta ? 'lateRefunded')
       ORDER BY id LIMIT 50`,
  );
  return rows.map((r) => String(r.id));
}
