import type { Queryable } from '../db.ts';

export async function finishSweep(tx: Queryable, sweepTxId: string, landed: boolean): Promise<void> {
  if (landed) await tx.query('UPDATE orders SET swept = true WHERE sweep_tx_id = $1', [sweepTxId]);
  else await tx.query('UPDATE orders SET sweep_tx_id = NULL WHERE sweep_tx_id = $1 AND swept = false', [sweepTxId]);
}
