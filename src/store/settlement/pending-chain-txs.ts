import type { Queryable } from '../db.ts';
import { toChainTx, type ChainTx, type ChainTxRow } from './chain-tx.ts';

export async function pendingChainTxs(db: Queryable, limit: number): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>(`SELECT * FROM chain_txs WHERE status = 'pending' ORDER BY id LIMIT $1`, [limit]);
  return rows.map(toChainTx);
}
