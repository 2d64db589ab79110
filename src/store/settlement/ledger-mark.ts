import type { Queryable } from '../db.ts';

/**
 * Where the books stand: the last ledger entry and the transactions recorded but not settled. Equal before
 * and after a chain read, nothing was booked or settled while the chain was read (reconcile's snapshot check).
 */
export async function ledgerMark(db: Queryable): Promise<{ lastEntry: string; pending: number }> {
  const { rows } = await db.query<{ last: string | null; pending: string | number }>(
    `SELECT (SELECT max(id)::text FROM ledger_entries) AS last, (SELECT count(*) FROM chain_txs WHERE status = 'pending') AS pending`,
  );
  return { lastEntry: rows[0]?.last ?? '0', pending: Number(rows[0]?.pending ?? 0) };
}
