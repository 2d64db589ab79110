import type { Queryable } from '../db.ts';
import type { ChainTxKind } from './chain-tx.ts';

/**
 * The attempts of one part of an order's payout or refund, or of a late refund (`lateOf`, the sweep's
 * signature): how many landed and failed, and when the last was recorded.
 */
export async function partAttempts(db: Queryable, orderId: string, kind: ChainTxKind, part: number, lateOf?: string): Promise<{ failed: number; lastAt: Date | null }> {
  const { rows } = await db.query<{ failed: number; last_at: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed, max(created_at) AS last_at FROM chain_txs
     WHERE order_id = $1 AND kind = $2 AND coalesce(meta ->> 'part', '0') = $3 AND coalesce(meta ->> 'lateOf', '') = $4`,
    [orderId, kind, String(part), lateOf ?? ''],
  );
  return { failed: rows[0]?.failed ?? 0, lastAt: rows[0]?.last_at ?? null };
}
