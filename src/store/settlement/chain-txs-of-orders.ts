import type { Queryable } from '../db.ts';
import { toChainTx, type ChainTx, type ChainTxKind, type ChainTxRow } from './chain-tx.ts';

export async function chainTxsOfOrder(db: Queryable, orderId: string, kind: ChainTxKind): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = $1 AND kind = $2 ORDER BY id', [orderId, kind]);
  return rows.map(toChainTx);
}

/** The transactions of a kind of many orders, oldest first. */
export async function chainTxsOfOrders(db: Queryable, orderIds: string[], kind: ChainTxKind): Promise<ChainTx[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = ANY($1::bigint[]) AND kind = $2 ORDER BY id', [orderIds, kind]);
  return rows.map(toChainTx);
}
