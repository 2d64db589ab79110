import type { Address } from '@solana/kit';
import type { Queryable } from '../db.ts';
import { SWEEPABLE, type UnsweptDeposit } from './sweepable.ts';

/**
 * Sweepable deposits of an asset (above) with ids after `afterId`, oldest first, locked for the caller's
 * transaction. The caller moves `afterId` along, so deposits that cannot be swept right now never hold
 * back the ones after them.
 */
export async function lockUnsweptDeposits(tx: Queryable, finalizedBlockHeight: bigint, assetId: string, limit: number, afterId = '0'): Promise<UnsweptDeposit[]> {
  const { rows } = await tx.query<{ id: string | number; tracking_id: string; deposit_account: Address; deposit_owner: Address; source_asset_id: string; deposit_amount: string }>(
    `SELECT id, tracking_id, deposit_account, deposit_owner, source_asset_id, deposit ->> 'amount' AS deposit_amount FROM orders
     WHERE ${SWEEPABLE} AND source_asset_id = $2 AND id > $4::bigint
     ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [finalizedBlockHeight.toString(), assetId, limit, afterId],
  );
  return rows.map((r) => ({ orderId: String(r.id), trackingId: r.tracking_id, depositAccount: r.deposit_account, depositOwner: r.deposit_owner, sourceAssetId: r.source_asset_id, depositAmount: BigInt(r.deposit_amount) }));
}
