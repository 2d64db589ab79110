import type { Queryable } from '../db.ts';
import { LATE_REFUND_RETRY_DAYS, latestLateRefundAttempts } from './late-refund-attempts.ts';

/** Late refund parts whose latest attempt died within the retry window: to be replaced (their chain_txs ids). */
export async function deadLateRefunds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string | number }>(
    `SELECT id FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS)}) latest WHERE status IN ('expired', 'failed')`,
  );
  return rows.map((r) => String(r.id));
}
