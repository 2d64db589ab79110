import { classKey } from '../domain/class-release.ts';
import type { Queryable } from './db.ts';

export interface ClassCount {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  deposits: number;
  /** The same deposits by age: byAge[i] were created i buckets before `now` (when asked for by bucket). */
  byAge: number[];
}

/** Buckets of a count by age (issue 51: how clustered a class's arrivals are, class-forecast.ts). */
export interface AgeBuckets {
  now: Date;
  bucketMs: number;
}

type CountRow = { source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; age: number | string; n: string };

/** The age bucket of an order's creation, as SQL over the parameters $now and $bucketMs. */
const ageBucketSql = (now: string, bucketMs: string) => `greatest(0, floor(extract(epoch from (${now}::timestamptz - created_at)) * 1000 / ${bucketMs}))::int`;

/** Rows of (class, age bucket, count) gathered per class. */
function gatherByClass(rows: readonly CountRow[]): ClassCount[] {
  const out = new Map<string, ClassCount>();
  for (const r of rows) {
    const cls = { sourceAssetId: r.source_asset_id, destinationAssetId: r.destination_asset_id, mode: r.mode, pinnedAmount: BigInt(r.pinned) };
    const key = classKey(cls);
    const c = out.get(key) ?? { ...cls, deposits: 0, byAge: [] };
    const age = Number(r.age);
    const n = Number(r.n);
    c.deposits += n;
    while (c.byAge.length <= age) c.byAge.push(0);
    c.byAge[age]! += n;
    out.set(key, c);
  }
  return [...out.values()];
}

/**
 * Orders with a deposit created since `since`, per class (source, destination, mode, pinned amount),
 * among the given pinned amounts only (the standard ones: a free amount is a class of one anyway), by age
 * bucket when `buckets` is given, and leaving out the orders `except` names.
 */
export async function recentClassCounts(db: Queryable, since: Date, pinnedAmounts: readonly bigint[], buckets?: AgeBuckets, except: readonly string[] = []): Promise<ClassCount[]> {
  if (pinnedAmounts.length === 0) return [];
  const { rows } = await db.query<CountRow>(
    `SELECT source_asset_id, destination_asset_id, mode, pinned::text AS pinned, age, count(*) AS n
       FROM (SELECT source_asset_id, destination_asset_id, mode,
                    CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END AS pinned,
                    ${buckets ? ageBucketSql('$4', '$5') : '0'} AS age
               FROM orders
              WHERE created_at >= $1 AND deposit IS NOT NULL AND NOT (id = ANY($3::bigint[]))) o
      WHERE pinned = ANY($2::numeric[])
      GROUP BY 1, 2, 3, 4, 5`,
    [since.toISOString(), pinnedAmounts.map(String), except, ...(buckets ? [buckets.now.toISOString(), buckets.bucketMs] : [])],
  );
  return gatherByClass(rows);
}

/** When the store's first order was created (how long Hush has been seeing traffic); null with none yet. */
export async function firstOrderAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>('SELECT min(created_at) AS at FROM orders');
  return rows[0]?.at ?? null;
}
