import type { Queryable } from '../db.ts';
import { toChainTx, type ChainTx, type ChainTxRow } from './chain-tx.ts';

export async function getChainTx(db: Queryable, id: string): Promise<ChainTx | null> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE id = $1', [id]);
  return rows[0] ? toChainTx(rows[0]) : null;
}
