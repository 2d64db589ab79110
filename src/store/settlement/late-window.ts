import type { Address } from '@solana/kit';
import type { Queryable } from '../db.ts';
import { FINAL } from './final-statuses.ts';

/** A finished order the late-deposit pass reads: its deposit account and deposit owner. */
export interface LateCandidate {
  id: string;
  tracking_id: string;
  deposit_account: Address;
  deposit_owner: Address;
  source_asset_id: string;
}

export const LATE_WINDOW = `o.status IN ${FINAL} AND o.updated_at > now() - interval '7 days' AND (o.swept OR o.deposit IS NULL)`;

const PENDING_SWEEP = `EXISTS (SELECT 1 FROM chain_txs c WHERE c.kind = 'sweep' AND c.status = 'pending'
  AND c.meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', o.deposit_account)))`;

export const LATE_COLUMNS = `o.id, o.tracking_id, o.deposit_account, o.deposit_owner, o.source_asset_id, ${PENDING_SWEEP} AS pending`;

export type LateRow = Omit<LateCandidate, 'id'> & { id: string | number; pending: boolean };

export const lateRow = (r: LateRow): LateCandidate & { pending: boolean } => ({
  id: String(r.id),
  tracking_id: r.tracking_id,
  deposit_account: r.deposit_account,
  deposit_owner: r.deposit_owner,
  source_asset_id: r.source_asset_id,
  pending: r.pending,
});

/**
 * Where a rotation through the late-deposit window starts: before the first order created in the last
 * 8 days (orders live far less than a day, so that covers every order finished in the last 7).
 */
export async function lateWindowStart(db: Queryable): Promise<bigint> {
  const { rows } = await db.query<{ id: string | number }>(`SELECT id FROM orders WHERE created_at > now() - interval '8 days' ORDER BY created_at, id LIMIT 1`);
  return rows[0] ? BigInt(rows[0].id) - 1n : 0n;
}
