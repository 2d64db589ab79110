import type { Queryable } from '../db.ts';
import type { Finding } from '../screening-log-store.ts';

/**
 * The findings behind an order's current hold: what screening found since the operator last resolved the order.
 * A resolution of late funds held at its deposit account (`hold_id` set, logged under the same tracking id) answered
 * those funds, not the order: it must not hide the order's own findings (a listing would then be released by one
 * operator, four eyes skipped).
 */
export async function openFindings(db: Queryable, trackingId: string): Promise<Finding[]> {
  const { rows } = await db.query<Finding>(
    `SELECT result, field, address, list, version, reason FROM screening_log
      WHERE tracking_id = $1 AND result IN ('blocked', 'error')
        AND id > coalesce((SELECT max(id) FROM screening_log WHERE tracking_id = $1 AND stage = 'resolution' AND hold_id IS NULL), 0)
      ORDER BY id`,
    [trackingId],
  );
  return rows;
}

/**
 * The id of the order's latest finding of its own stages (what held it), or null: an answer weighed on one hold
 * checks it again where it is carried out, so that it is never carried out on the next hold (released and held
 * again meanwhile, on another finding).
 */
export async function latestFindingId(db: Queryable, trackingId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string | null }>(
    `SELECT max(id)::text AS id FROM screening_log WHERE tracking_id = $1 AND result IN ('blocked', 'error') AND stage IN ('deposit', 'payout', 'refund')`,
    [trackingId],
  );
  return rows[0]?.id ?? null;
}
