import type { Queryable } from '../db.ts';
import { toChainTx, type ChainTx, type ChainTxRow } from './chain-tx.ts';

/**
 * Landed transactions whose costs are not booked yet (a payout completes its order first: settle-fates.ts,
 * book-costs.ts), oldest first. What a crash between the two left is found here.
 */
export async function uncostedChainTxs(db: Queryable, limit: number): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>(`SELECT * FROM chain_txs WHERE status = 'confirmed' AND fee_lamports IS NULL ORDER BY id LIMIT $1`, [limit]);
  return rows.map(toChainTx);
}
