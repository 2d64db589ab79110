import type { Db } from '../db.ts';
import { ORDER_CHANGED_CHANNEL } from '../orders-store.ts';

export interface HeldPayout {
  id: string;
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  /** Deposit confirmation, ms since epoch. */
  confirmedAt: number;
}

/**
 * One class-release pass in one transaction: reads the payouts still waiting for their class (their quote
 * promised privacy, not released, due in the future) and locks them, lets `decide` pick which go and
 * when, and brings their due and run times forward. Only one worker decides at a time (an advisory lock;
 * the others skip the pass), and the locks keep every member of a release in its status until the
 * release is written, so its size is exact. A worker holding one of these orders may give it back with
 * the due time it read before: releaseOrders never sets such an order's run time past its payout_due_at.
 * Each released order keeps its release's size (the status record's privacy.releasedWith), and its
 * change is stamped and notified, so status caches and pollers see it. Returns how many were released.
 */
export async function releaseClasses(db: Db, decide: (held: HeldPayout[]) => { id: string; at: Date; releasedWith: number }[]): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: lock } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('hush.class_release')) AS ok`);
    if (!lock[0]?.ok) return 0;
    const { rows } = await tx.query<{ id: string | number; source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; confirmed_at: string }>(
      `SELECT id, source_asset_id, destination_asset_id, mode, (CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)::text AS pinned,
              deposit ->> 'confirmedAt' AS confirmed_at
         FROM orders
        WHERE status IN ('deposit_confirmed', 'swapping') AND class_released_at IS NULL
          AND payout_due_at > now() AND deposit ->> 'confirmedAt' IS NOT NULL
          AND quote -> 'privacy' ->> 'standard' = 'true'
        FOR UPDATE`,
    );
    const held = rows.map((r) => ({
      id: String(r.id),
      sourceAssetId: r.source_asset_id,
      destinationAssetId: r.destination_asset_id,
      mode: r.mode,
      pinnedAmount: BigInt(r.pinned),
      confirmedAt: Date.parse(r.confirmed_at),
    }));
    const release = held.length > 0 ? decide(held) : [];
    if (release.length === 0) return 0;
    const { rows: notified } = await tx.query(
      `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::integer[]) AS v(id, at, size)),
       u AS (UPDATE orders o SET class_released_at = now(), class_release_size = v.size, updated_at = now(),
              payout_due_at = least(o.payout_due_at, v.at), next_run_at = least(o.next_run_at, v.at)
         FROM v WHERE o.id = v.id AND o.class_released_at IS NULL AND o.status IN ('deposit_confirmed', 'swapping')
         RETURNING o.tracking_id)
       SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
      [release.map((r) => r.id), release.map((r) => r.at.toISOString()), release.map((r) => r.releasedWith)],
    );
    return notified.length;
  });
}
