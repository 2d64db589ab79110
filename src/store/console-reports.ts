import type { Queryable } from './db.ts';
import { statusesSql } from './settlement/final-statuses.ts';

export interface ClassPrivacy {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  /** The class's pinned amount (amountIn under exact_in, amountOut under exact_out), base units of the source/destination asset. */
  amount: string;
  /** Members whose deposit confirmed and whose release has not come yet. */
  waiting: number;
  /** The oldest waiting member's deposit confirmation, or null. */
  waitingSince: string | null;
  /** The class's releases in the window, newest first (at most 20): when, how many went together, how long they had waited. */
  releases: { at: string; size: number; members: number; meanDelaySeconds: number; maxDelaySeconds: number }[];
}

/**
 * Privacy at a glance (the operator console): per class (asset pair, mode, pinned amount) of private
 * orders, who waits for the class's release now, and its releases of the last `windowHours`. Store only.
 */
export async function classPrivacy(db: Queryable, windowHours: number): Promise<ClassPrivacy[]> {
  const { rows } = await db.query<{ s: string; d: string; mode: 'exact_in' | 'exact_out'; amount: string; waiting: string | null; since: string | null; releases: ClassPrivacy['releases'] | null }>(
    `WITH cls AS (
       SELECT source_asset_id AS s, destination_asset_id AS d, mode,
              (CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)::text AS amount,
              status, class_released_at, class_release_size, (deposit ->> 'confirmedAt')::timestamptz AS confirmed_at
         FROM orders
        WHERE quote -> 'privacy' ->> 'standard' = 'true'
          AND ((status IN ${statusesSql('awaitsPayout')} AND class_released_at IS NULL AND deposit ->> 'confirmedAt' IS NOT NULL)
               OR class_released_at > now() - make_interval(hours => $1))
     ),
     waiting AS (
       SELECT s, d, mode, amount, count(*) AS n, min(confirmed_at) AS since FROM cls
        WHERE class_released_at IS NULL GROUP BY 1, 2, 3, 4
     ),
     released AS (
       SELECT s, d, mode, amount, class_released_at AS at, max(class_release_size) AS size, count(*) AS members,
              avg(extract(epoch FROM class_released_at - confirmed_at)) AS mean_delay, max(extract(epoch FROM class_released_at - confirmed_at)) AS max_delay,
              row_number() OVER (PARTITION BY s, d, mode, amount ORDER BY class_released_at DESC) AS rank
         FROM cls WHERE class_released_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5
     ),
     recent AS (
       SELECT s, d, mode, amount,
              json_agg(json_build_object('at', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'size', coalesce(size, members), 'members', members,
                                         'meanDelaySeconds', round(coalesce(mean_delay, 0)), 'maxDelaySeconds', round(coalesce(max_delay, 0))) ORDER BY at DESC) AS releases
         FROM released WHERE rank <= 20 GROUP BY 1, 2, 3, 4
     )
     SELECT coalesce(w.s, r.s) AS s, coalesce(w.d, r.d) AS d, coalesce(w.mode, r.mode) AS mode, coalesce(w.amount, r.amount) AS amount,
            w.n::text AS waiting, to_char(w.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS since, r.releases
       FROM waiting w FULL JOIN recent r ON (w.s, w.d, w.mode, w.amount) = (r.s, r.d, r.mode, r.amount)
      ORDER BY 1, 2, 3, length(coalesce(w.amount, r.amount)), 4`,
    [windowHours],
  );
  return rows.map((r) => ({
    sourceAssetId: r.s,
    destinationAssetId: r.d,
    mode: r.mode,
    amount: r.amount,
    waiting: Number(r.waiting ?? 0),
    waitingSince: r.since,
    releases: (r.releases ?? []).map((x) => ({ ...x, meanDelaySeconds: Number(x.meanDelaySeconds), maxDelaySeconds: Number(x.maxDelaySeconds) })),
  }));
}
