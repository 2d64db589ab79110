import type { Queryable } from '../db.ts';
import { toChainTx, type ChainTxKind, type ChainTxOf, type ChainTxRow } from './chain-tx.ts';

/** The transactions of a kind of one order, oldest first. */
export async function chainTxsOfOrder<K extends ChainTxKind>(db: Queryable, orderId: string, kind: K): Promise<ChainTxOf<K>[]> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = $1 AND kind = $2 ORDER BY id', [orderId, kind]);
  return rows.map(toChainTx) as ChainTxOf<K>[];
}

/** The transactions of a kind of many orders, oldest first. */
export async function chainTxsOfOrders<K extends ChainTxKind>(db: Queryable, orderIds: string[], kind: K): Promise<ChainTxOf<K>[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = ANY($1::bigint[]) AND kind = $2 ORDER BY id', [orderIds, kind]);
  return rows.map(toChainTx) as ChainTxOf<K>[];
}
