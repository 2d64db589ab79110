import type { Queryable } from '../db.ts';

export async function ledgerBalances(db: Queryable, accountPrefix?: string): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ account: string; asset_id: string; total: string }>(
    `SELECT account, asset_id, sum(amount) AS total FROM ledger_entries ${accountPrefix ? 'WHERE account LIKE $1' : ''} GROUP BY account, asset_id`,
    accountPrefix ? [`${accountPrefix}%`] : [],
  );
  return new Map(rows.map((r) => [`${r.account}|${r.asset_id}`, BigInt(r.total)]));
}
