import type { Queryable } from '../db.ts';

/**
 * A landed transaction's fee, set once (compare-and-set on its costs not booked yet), in the transaction that
 * books its cost movement; returns the ids this call set.
 */
export async function setTxFees(db: Queryable, items: { id: string; feeLamports: bigint }[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE chain_txs c SET fee_lamports = v.fee, updated_at = now()
     FROM unnest($1::bigint[], $2::bigint[]) AS v(id, fee)
     WHERE c.id = v.id AND c.status = 'confirmed' AND c.fee_lamports IS NULL
     RETURNING c.id`,
    [items.map((i) => i.id), items.map((i) => i.feeLamports.toString())],
  );
  return new Set(rows.map((r) => String(r.id)));
}
