import type { Queryable } from '../db.ts';

/** Transactions the books do not hold whole yet: recorded and not settled, or landed with their costs not booked (book-costs.ts). */
export const UNBOOKED_TXS = `(status = 'pending' OR (status = 'confirmed' AND fee_lamports IS NULL))`;

/**
 * Where the books stand: the last ledger entry and the transactions not booked whole (UNBOOKED_TXS). Equal before
 * and after a chain read, nothing was booked or settled while the chain was read (reconcile's snapshot check).
 */
export async function ledgerMark(db: Queryable): Promise<{ lastEntry: string; pending: number }> {
  const { rows } = await db.query<{ last: string | null; pending: string | number }>(
    `SELECT (SELECT max(id)::text FROM ledger_entries) AS last, (SELECT count(*) FROM chain_txs WHERE ${UNBOOKED_TXS}) AS pending`,
  );
  return { lastEntry: rows[0]?.last ?? '0', pending: Number(rows[0]?.pending ?? 0) };
}
