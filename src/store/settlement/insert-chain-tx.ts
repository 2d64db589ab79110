import type { Queryable } from '../db.ts';
import type { NewChainTx } from './chain-tx.ts';

/**
 * Records a signed transaction before it is sent. Returns null when a live payout/refund already
 * exists for the same order and part (the partial unique index): that is the "never paid twice" guard;
 * or when the same bytes are recorded already (same signature). ON CONFLICT rather than a caught error:
 * on PostgreSQL an error aborts the caller's transaction, whose COMMIT then silently rolls back
 * everything it recorded before.
 */
export async function insertChainTx(db: Queryable, t: NewChainTx): Promise<string | null> {
  const { rows } = await db.query<{ id: string | number }>(
    `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, now(), now()) ON CONFLICT DO NOTHING RETURNING id`,
    [t.kind, t.orderId, t.assetId, t.amount.toString(), t.source, t.destination, t.signature, t.wire, t.lastValidBlockHeight.toString(), JSON.stringify(t.meta ?? {})],
  );
  return rows[0] ? String(rows[0].id) : null;
}
