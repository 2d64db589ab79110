import type { Queryable } from '../db.ts';
import type { ChainTxStatus } from './chain-tx.ts';

/** Compare-and-set on a recorded transaction's fate; `confirmedAt` (ISO) goes into its meta in the same statement. */
export async function settleChainTx(db: Queryable, id: string, to: Exclude<ChainTxStatus, 'pending'>, feeLamports: bigint | null, confirmedAt?: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE chain_txs SET status = $2, fee_lamports = $3, updated_at = now(),
       meta = CASE WHEN $4::text IS NULL THEN meta ELSE meta || jsonb_build_object('confirmedAt', $4::text) END
     WHERE id = $1 AND status = 'pending'`,
    [id, to, feeLamports === null ? null : feeLamports.toString(), confirmedAt ?? null],
  );
  return rowCount > 0;
}

export interface ChainTxFate {
  id: string;
  to: Exclude<ChainTxStatus, 'pending'>;
  feeLamports: bigint | null;
  confirmedAt?: string;
  /** The chain's error of one that landed and failed (RPC JSON), kept in meta.err: what decides a refused recipient. */
  err?: unknown;
  /** The slot it landed in (chain_txs.landed_slot: the releasedWith count reads it). */
  landedSlot?: bigint;
}

/** settleChainTx for many transactions in one statement; returns the ids whose fate this call settled. */
export async function settleChainTxs(db: Queryable, items: ChainTxFate[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE chain_txs c SET status = v.status, fee_lamports = v.fee, updated_at = now(), landed_slot = v.slot,
       meta = CASE WHEN v.confirmed_at IS NULL THEN c.meta ELSE c.meta || jsonb_build_object('confirmedAt', v.confirmed_at) END
         || CASE WHEN v.err IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('err', v.err::jsonb) END
     FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[]) AS v(id, status, fee, confirmed_at, err, slot)
     WHERE c.id = v.id AND c.status = 'pending'
     RETURNING c.id`,
    [
      items.map((i) => i.id),
      items.map((i) => i.to),
      items.map((i) => (i.feeLamports === null ? null : i.feeLamports.toString())),
      items.map((i) => i.confirmedAt ?? null),
      // The RPC client may hand indices and codes over as bigints.
      items.map((i) => (i.err === undefined || i.err === null ? null : JSON.stringify(i.err, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)))),
      items.map((i) => (i.landedSlot === undefined ? null : i.landedSlot.toString())),
    ],
  );
  return new Set(rows.map((r) => String(r.id)));
}
