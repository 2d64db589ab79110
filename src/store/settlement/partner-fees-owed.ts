import type { Queryable } from '../db.ts';

/** Partner fees owed per payable account and asset: accrued less what pending partner payouts cover. */
export async function partnerFeesOwed(tx: Queryable): Promise<{ account: string; assetId: string; owed: bigint }[]> {
  const owed = await tx.query<{ account: string; asset_id: string; owed: string }>(
    `SELECT l.account, l.asset_id, (-sum(l.amount) - coalesce((SELECT sum(c.amount) FROM chain_txs c
            WHERE c.kind = 'partner_payout' AND c.status = 'pending' AND c.meta ->> 'payable' = l.account AND c.asset_id = l.asset_id), 0))::text AS owed
         FROM ledger_entries l WHERE l.account LIKE 'payable:partner:%' GROUP BY l.account, l.asset_id`,
  );
  return owed.rows.map((r) => ({ account: r.account, assetId: r.asset_id, owed: BigInt(r.owed) }));
}
