import type { Queryable } from '../db.ts';

/** Kinds of transaction that pay out of a pool wallet. */
export const OUTFLOW_KINDS = `'payout', 'refund', 'partner_payout'`;

/** Amounts of pending outgoing transactions per source account, so pool selection does not overspend. */
export async function pendingOutflows(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ source: string; total: string }>(
    `SELECT source, sum(amount) AS total FROM chain_txs WHERE status = 'pending' AND kind IN (${OUTFLOW_KINDS}) GROUP BY source`,
  );
  return new Map(rows.map((r) => [r.source, BigInt(r.total)]));
}
