import type { Queryable } from '../db.ts';

/** Kinds of transaction that pay out of a pool wallet. */
const OUTFLOW_KINDS = `'payout', 'refund', 'partner_payout'`;

/**
 * Pending outgoing transactions as (source, amount) rows: one per pool a transaction pays from (its
 * meta.sources when several, else its own source and amount).
 */
export const PENDING_OUTFLOW_LEGS = `SELECT coalesce(s.leg ->> 'holding', c.source) AS source, coalesce((s.leg ->> 'amount')::numeric, c.amount) AS amount
  FROM chain_txs c LEFT JOIN LATERAL jsonb_array_elements(c.meta -> 'sources') AS s(leg) ON true
  WHERE c.status = 'pending' AND c.kind IN (${OUTFLOW_KINDS})`;

/** Amounts of pending outgoing transactions per source account, so pool selection does not overspend. */
export async function pendingOutflows(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ source: string; total: string }>(`SELECT source, sum(amount)::text AS total FROM (${PENDING_OUTFLOW_LEGS}) legs GROUP BY source`);
  return new Map(rows.map((r) => [r.source, BigInt(r.total)]));
}
