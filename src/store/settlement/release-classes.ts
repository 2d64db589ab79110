import type { Db } from '../db.ts';

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
 * One class-release pass in one transaction: reads the standard payouts still waiting for their class
 * (not released, due in the future, at the given pinned amounts), lets `decide` pick which go and when,
 * and brings their due and run times forward. Only one worker decides at a time (an advisory lock; the
 * others skip the pass). A worker holding one of these orders may give it back with the due time it read
 * before: releaseOrders never sets such an order's run time past its payout_due_at. Returns how many
 * were released.
 */
export async function releaseClasses(
  db: Db,
  pinnedAmounts: readonly bigint[],
  decide: (held: HeldPayout[]) => { id: string; at: Date }[],
): Promise<number> {
  if (pinnedAmounts.length === 0) return 0;
  return db.transaction(async (tx) => {
    const { rows: lock } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('hush.class_release')) AS ok`);
    if (!lock[0]?.ok) return 0;
    const { rows } = await tx.query<{ id: string | number; source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; confirmed_at: string }>(
      `SELECT id, source_asset_id, destination_asset_id, mode, pinned::text AS pinned, deposit ->> 'confirmedAt' AS confirmed_at
         FROM (SELECT o.*, CASE o.mode WHEN 'exact_in' THEN o.amount_in ELSE o.amount_out END AS pinned FROM orders o
                WHERE o.status IN ('deposit_confirmed', 'swapping') AND o.class_released_at IS NULL
                  AND o.payout_due_at > now() AND o.deposit ->> 'confirmedAt' IS NOT NULL) w
        WHERE pinned = ANY($1::numeric[])`,
      [pinnedAmounts.map(String)],
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
    const { rowCount } = await tx.query(
      `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, at)),
       s AS (SELECT o.id FROM orders o JOIN v ON v.id = o.id
              WHERE o.class_released_at IS NULL AND o.status IN ('deposit_confirmed', 'swapping')
              FOR UPDATE)
       UPDATE orders o SET class_released_at = now(), payout_due_at = least(o.payout_due_at, v.at),
              next_run_at = least(o.next_run_at, v.at)
         FROM v JOIN s ON s.id = v.id WHERE o.id = v.id`,
      [release.map((r) => r.id), release.map((r) => r.at.toISOString())],
    );
    return rowCount;
  });
}
