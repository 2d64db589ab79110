import type { Queryable } from '../db.ts';
import { statusesSql } from './final-statuses.ts';

/**
 * What open unfunded orders promise (docs/spec.md §4: liquidity is reserved for deposits, not promises):
 * `reserved`, per asset and account, what those created in the last `reserveS` seconds and not expired
 * promise; `open`, per account, how many are open (not expired) and when the first of them expires. One scan
 * of every open unfunded order, so it costs what their number costs: the inventory spaces it out when it is
 * long (src/services/unfunded-read-pace.ts), apart from poolCommitments, which funded orders keep short.
 */
export async function unfundedCommitments(db: Queryable, reserveS: number): Promise<UnfundedCommitments> {
  const { rows } = await db.query<{ asset: string; account: string; n: string; first_expiration: Date | string; reserved: string | null }>(
    `SELECT destination_asset_id AS asset, account_id AS account, count(*)::text AS n, min(expiration) AS first_expiration,
       (sum(amount_out) FILTER (WHERE created_at > now() - make_interval(secs => $1::double precision)))::text AS reserved
     FROM orders WHERE status IN ${statusesSql('countsAsOpen')} AND expiration > now()
     GROUP BY destination_asset_id, account_id`,
    [reserveS],
  );
  const out: UnfundedCommitments = { reserved: new Map(), open: new Map() };
  for (const r of rows) {
    if (r.reserved !== null) {
      const byAccount = out.reserved.get(r.asset) ?? new Map<string, bigint>();
      byAccount.set(r.account, BigInt(r.reserved));
      out.reserved.set(r.asset, byAccount);
    }
    const firstExpiration = new Date(r.first_expiration);
    const open = out.open.get(r.account);
    if (!open) out.open.set(r.account, { count: Number(r.n), firstExpiration });
    else {
      open.count += Number(r.n);
      if (firstExpiration < open.firstExpiration) open.firstExpiration = firstExpiration;
    }
  }
  return out;
}

export interface UnfundedCommitments {
  /** Per asset, per account: amountOut of unfunded orders still in their reservation window. */
  reserved: Map<string, Map<string, bigint>>;
  /** Per account: its open unfunded orders, and when the first of them expires. */
  open: Map<string, { count: number; firstExpiration: Date }>;
}
