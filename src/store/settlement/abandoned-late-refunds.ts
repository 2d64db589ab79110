import type { Queryable } from '../db.ts';
import { LATE_REFUND_RETRY_DAYS, latestLateRefundAttempts } from './late-refund-attempts.ts';

/** Late refund parts given up in the last day: their latest attempt died and is past the retry window. */
export async function abandonedLateRefunds(db: Queryable): Promise<{ id: string; lateOf: string; part: number; trackingId: string | null; amount: string; assetId: string }[]> {
  const { rows } = await db.query<{ id: string | number; late_of: string; part: number; tracking_id: string | null; amount: string; asset_id: string }>(
    `SELECT latest.id, latest.late_of, latest.part, o.tracking_id, latest.amount::text, latest.asset_id FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS + 1)}) latest
     LEFT JOIN orders o ON o.id = latest.order_id
     WHERE latest.status IN ('expired', 'failed') AND latest.created_at <= now() - interval '${LATE_REFUND_RETRY_DAYS} days'`,
  );
  return rows.map((r) => ({ id: String(r.id), lateOf: r.late_of, part: r.part, trackingId: r.tracking_id, amount: r.amount, assetId: r.asset_id }));
}
