import type { Queryable } from '../db.ts';
import type { ChainTxKind } from './chain-tx.ts';

/**
 * The attempts of one part of an order's payout or refund (late refund parts included): how many landed
 * and failed, and when the last was recorded.
 */
export async function partAttempts(db: Queryable, orderId: string, kind: ChainTxKind, part: string): Promise<{ failed: number; lastAt: Date | null }> {
  const { rows } = await db.query<{ failed: number; last_at: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed, max(created_at) AS last_at FROM chain_txs
     WHERE order_id = $1 AND kind = $2 AND coalesce(meta ->> 'part', '0') = $3`,
    [orderId, kind, part],
  );
  return { failed: rows[0]?.failed ?? 0, lastAt: rows[0]?.last_at ?? null };
}
