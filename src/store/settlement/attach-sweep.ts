import type { Queryable } from '../db.ts';

export async function attachSweep(tx: Queryable, orderIds: string[], sweepTxId: string): Promise<void> {
  await tx.query('UPDATE orders SET sweep_tx_id = $2 WHERE id = ANY($1::bigint[]) AND sweep_tx_id IS NULL', [orderIds, sweepTxId]);
}
