import type { Queryable } from './db.ts';

export interface ClassCount {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  deposits: number;
}

/**
 * Orders with a deposit created since `since`, per class (source, destination, mode, pinned amount),
 * among the given pinned amounts only (the standard ones: a free amount is a class of one anyway).
 */
export async function recentClassCounts(db: Queryable, since: Date, pinnedAmounts: readonly bigint[]): Promise<ClassCount[]> {
  if (pinnedAmounts.length === 0) return [];
  const { rows } = await db.query<{ source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; n: string }>(
    `SELECT source_asset_id, destination_asset_id, mode, pinned::text AS pinned, count(*) AS n
       FROM (SELECT source_asset_id, destination_asset_id, mode,
                    CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END AS pinned
               FROM orders
              WHERE created_at >= $1 AND deposit IS NOT NULL) o
      WHERE pinned = ANY($2::numeric[])
      GROUP BY 1, 2, 3, 4`,
    [since.toISOString(), pinnedAmounts.map(String)],
  );
  return rows.map((r) => ({
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
    mode: r.mode,
    pinnedAmount: BigInt(r.pinned),
    deposits: Number(r.n),
  }));
}

/** When the store's first order was created (how long Hush has been seeing traffic); null with none yet. */
export async function firstOrderAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>('SELECT min(created_at) AS at FROM orders');
  return rows[0]?.at ?? null;
}
