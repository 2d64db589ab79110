import type { Queryable } from '../db.ts';
import { LATE_REFUND_RETRY_DAYS, latestLateRefundAttempts } from './late-refund-attempts.ts';
import { PENDING_OUTFLOW_LEGS } from './pending-outflows.ts';
import { statusesSql, statusLiteral } from './final-statuses.ts';
import { STATUS } from '../../domain/order-state.ts';

/**
 * What the pools are committed to, read in one statement so in one snapshot: `pending`, per source wallet,
 * what pending outgoing transactions will take (as pendingOutflows); `owed`, per asset, what funded open
 * orders still owe beyond their live (pending or landed) transactions. An order with a deposit not yet
 * paying owes its amountOut; one sending or refunding whose transaction died owes what no live one covers
 * until its replacement is recorded (a refund: the deposit less the network fee, in the source asset).
 * Late funds (sent after an order ended) are owed back from their sweep until their refund is live. `held`,
 * per asset: the part of what is owed that waits on an operator — held orders (docs/spec.md §12: still owed,
 * never free) and late funds held by screening; never also in `owed`, so the console's columns add up. An
 * amount moves from one side to the other when a transaction is recorded or dies: two statements could
 * each miss it.
 *
 * Unfunded orders owe nothing (docs/spec.md §4): what they promise is unfundedCommitments', a statement of
 * its own because it reads every open unfunded order and may be spaced out. An order funded between the two
 * reads is counted by both when the unfunded one is read first (as the inventory does), by neither never.
 */
export async function poolCommitments(db: Queryable): Promise<PoolCommitments> {
  const { rows } = await db.query<{ side: 'pending' | 'owed' | 'held'; key: string; total: string }>(
    `WITH owed AS (
       SELECT destination_asset_id AS asset_id, amount_out AS amount, status IN ${statusesSql('operatorHold')} AS held FROM orders
       WHERE status IN ${statusesSql('owesAmountOut')}
       UNION ALL
       -- Late funds held by screening instead of refunded: owed back (or frozen) until the operator resolves them.
       SELECT asset_id, amount, status = 'held' FROM screening_holds WHERE kind = 'late' AND status IN ('held', 'refund_due')
       UNION ALL
       SELECT o.destination_asset_id, o.amount_out - coalesce(sum(c.amount), 0), false FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'payout' AND c.status IN ('pending', 'confirmed')
       WHERE o.status = ${statusLiteral(STATUS.sending)} GROUP BY o.id
       UNION ALL
       SELECT o.source_asset_id, coalesce((o.deposit ->> 'amount')::numeric, 0) - o.network_fee - coalesce(sum(c.amount), 0), false FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'refund' AND c.status IN ('pending', 'confirmed')
         AND (c.meta ->> 'late') IS DISTINCT FROM 'true'
       WHERE o.status = ${statusLiteral(STATUS.refunding)} GROUP BY o.id
       UNION ALL
       -- Late funds swept whose refunds are not recorded yet (the late pass retries them): each late item's
       -- amount less its order's network fee, as refundLate computes it. From the moment the sweep is
       -- recorded: one that landed is in the pools' balances before the worker settles its record.
       SELECT o.source_asset_id, (i.item ->> 'amount')::numeric - o.network_fee, false
       FROM chain_txs s CROSS JOIN LATERAL jsonb_array_elements(s.meta -> 'items') AS i(item)
       JOIN orders o ON o.id = (i.item ->> 'orderId')::bigint
       WHERE s.kind = 'sweep' AND s.status IN ('pending', 'confirmed') AND NOT (s.meta ? 'lateRefunded')
         AND s.meta -> 'items' @> '[{"late": true}]'::jsonb AND (i.item ->> 'late')::boolean
       UNION ALL
       -- Late refund parts whose latest attempt died, awaiting replacement (deadLateRefunds).
       SELECT asset_id, amount, false FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS)}) latest
       WHERE status IN ('expired', 'failed'))
     SELECT CASE WHEN held THEN 'held' ELSE 'owed' END AS side, asset_id AS key, sum(amount)::text AS total FROM owed WHERE amount > 0 GROUP BY 1, 2
     UNION ALL
     SELECT 'pending', source, sum(amount)::text FROM (${PENDING_OUTFLOW_LEGS}) legs GROUP BY source`,
  );
  const out: PoolCommitments = { pending: new Map(), owed: new Map(), held: new Map() };
  for (const r of rows) out[r.side].set(r.key, BigInt(r.total));
  return out;
}

export interface PoolCommitments {
  pending: Map<string, bigint>;
  /** Owed and not waiting on an operator. */
  owed: Map<string, bigint>;
  /** Owed and waiting on an operator: held orders, late funds held by screening. */
  held: Map<string, bigint>;
}
