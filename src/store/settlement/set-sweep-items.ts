import type { Queryable } from '../db.ts';

/** Replaces a sweep's items (late arrivals added as items of their own: see withLateArrivals). */
export async function setSweepItems(tx: Queryable, sweepTxId: string, items: unknown[]): Promise<void> {
  await tx.query(`UPDATE chain_txs SET meta = jsonb_set(meta, '{items}', $2::jsonb) WHERE id = $1`, [sweepTxId, JSON.stringify(items)]);
}
