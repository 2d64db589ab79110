import type { Queryable } from '../db.ts';
import type { Finding } from '../screening-log-store.ts';

/** The findings behind an order's current hold: what screening found since the operator last resolved it. */
export async function openFindings(db: Queryable, trackingId: string): Promise<Finding[]> {
  const { rows } = await db.query<Finding>(
    `SELECT result, field, address, list, version, reason FROM screening_log
      WHERE tracking_id = $1 AND result IN ('blocked', 'error')
        AND id > coalesce((SELECT max(id) FROM screening_log WHERE tracking_id = $1 AND stage = 'resolution'), 0)
      ORDER BY id`,
    [trackingId],
  );
  return rows;
}
