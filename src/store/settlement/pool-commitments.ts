import type { Queryable } from '../db.ts';
import { LATE_REFUND_RETRY_DAYS, latestLateRefundAttempts } from './late-refund-attempts.ts';
import { PENDING_OUTFLOW_LEGS } from './pending-outflows.ts';
import { statusesSql } from './final-statuses.ts';

/**
 * What the pools are committed to, read in one statement so in one snapshot: `pending`, per source wallet,
 * what pending outgoing transactions will take (as pendingOutflows); `owed`, per asset, what funded open
 * orders still owe beyond their live (pending or landed) transactions. An order with a deposit not yet
 * paying owes its amountOut; one sending or refunding whose transaction died owes what no live one covers
 * until its replacement is recorded (a refund: the deposit less the network fee, in the source asset).
 * Late funds (sent after an order ended) are owed back from their sweep until their refund is live. An
 * amount moves from one side to the other when a transaction is recorded or dies: two statements could
 * each miss it.
 *
 * Unfunded orders owe nothing (docs/spec.md §4: liquidity is reserved for deposits, not promises):
 * `reserved`, per asset and account, is what those created in the last `reserveS` seconds and not expired
 * promise; `open`, per account, how many are open (not expired) and when the first of them expires.
 */
export async function poolCommitments(db: Queryable, reserveS = 0): Promise<PoolCommitments> {
  const { rows } = await db.query<{ side: 'pending' | 'owed' | 'reserved' | 'open'; key: string; account: string | null; total: string; until: Date | string | null }>(
    `WITH owed AS (
       SELECT destination_asset_id AS asset_id, amount_out AS amount FROM orders
       WHERE status IN ${statusesSql('owesAmountOut')}
       UNION ALL
       -- Late funds held by screening instead of refunded: owed back (or frozen) until the operator resolves them.
       SELECT asset_id, amount FROM screening_holds WHERE kind = 'late' AND status IN ('held', 'refund_due')
       UNION ALL
       SELECT o.destination_asset_id, o.amount_out - coalesce(sum(c.amount), 0) FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'payout' AND c.status IN ('pending', 'confirmed')
       WHERE o.status = 'sending' GROUP BY o.id
       UNION ALL
       SELECT o.source_asset_id, coalesce((o.deposit ->> 'amount')::numeric, 0) - o.network_fee - coalesce(sum(c.amount), 0) FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'refund' AND c.status IN ('pending', 'confirmed')
         AND (c.meta ->> 'late') IS DISTINCT FROM 'true'
       WHERE o.status = 'refunding' GROUP BY o.id
       UNION ALL
       -- Late funds swept whose refunds are not recorded yet (the late pass retries them): each late item's
       -- amount less its order's network fee, as refundLate computes it. From the moment the sweep is
       -- recorded: one that landed is in the pools' balances before the worker settles its record.
       SELECT o.source_asset_id, (i.item ->> 'amount')::numeric - o.network_fee
       FROM chain_txs s CROSS JOIN LATERAL jsonb_array_elements(s.meta -> 'items') AS i(item)
       JOIN orders o ON o.id = (i.item ->> 'orderId')::bigint
       WHERE s.kind = 'sweep' AND s.status IN ('pending', 'confirmed') AND NOT (s.meta ? 'lateRefunded')
         AND s.meta -> 'items' @> '[{"late": true}]'::jsonb AND (i.item ->> 'late')::boolean
       UNION ALL
       -- Late refund parts whose latest attempt died, awaiting replacement (deadLateRefunds).
       SELECT asset_id, amount FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS)}) latest
       WHERE status IN ('expired', 'failed')),
     -- Open unfunded orders, read once for both of their sides ('reserved' and 'open'): a deployment with
     -- many of them pays one scan of them per refresh, not two.
     unfunded AS (
       SELECT destination_asset_id, account_id, count(*) AS n, min(expiration) AS first_expiration,
         sum(amount_out) FILTER (WHERE created_at > now() - make_interval(secs => $1::double precision)) AS reserved
       FROM orders WHERE status IN ${statusesSql('countsAsOpen')} AND expiration > now()
       GROUP BY destination_asset_id, account_id)
     SELECT 'owed' AS side, asset_id AS key, NULL AS account, sum(amount)::text AS total, NULL::timestamptz AS until FROM owed WHERE amount > 0 GROUP BY asset_id
     UNION ALL
     SELECT 'pending', source, NULL, sum(amount)::text, NULL FROM (${PENDING_OUTFLOW_LEGS}) legs GROUP BY source
     UNION ALL
     SELECT 'reserved', destination_asset_id, account_id, reserved::text, NULL FROM unfunded WHERE reserved IS NOT NULL
     UNION ALL
     SELECT 'open', '', account_id, sum(n)::text, min(first_expiration) FROM unfunded GROUP BY account_id`,
    [reserveS],
  );
  const out: PoolCommitments = { pending: new Map(), owed: new Map(), reserved: new Map(), open: new Map() };
  for (const r of rows) {
    if (r.side === 'pending' || r.side === 'owed') out[r.side].set(r.key, BigInt(r.total));
    else if (r.side === 'reserved') {
      const byAccount = out.reserved.get(r.key) ?? new Map<string, bigint>();
      byAccount.set(r.account!, BigInt(r.total));
      out.reserved.set(r.key, byAccount);
    } else out.open.set(r.account!, { count: Number(r.total), firstExpiration: new Date(r.until!) });
  }
  return out;
}

export interface PoolCommitments {
  pending: Map<string, bigint>;
  owed: Map<string, bigint>;
  /** Per asset, per account: amountOut of unfunded orders still in their reservation window. */
  reserved: Map<string, Map<string, bigint>>;
  /** Per account: its open unfunded orders, and when the first of them expires. */
  open: Map<string, { count: number; firstExpiration: Date }>;
}
