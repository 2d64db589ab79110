import type { Queryable } from '../db.ts';
import { transitionSql } from '../order-transitions.ts';
import { CHAIN_TX_INSERT_FROM_PARAMS, chainTxParams, type NewChainTx } from './chain-tx.ts';

const START = transitionSql({
  route: ['deposit_confirmed', 'sending'],
  set: `locked_by = NULL, locked_until = NULL, attempts = 0,
         next_run_at = now() + make_interval(secs => $3::double precision / 1000)`,
  where: 'o.id = ANY($1::bigint[]) AND o.locked_by = $2',
  effects: `c AS (${CHAIN_TX_INSERT_FROM_PARAMS(4)} WHERE t.order_id IN (SELECT id FROM u))`,
});

/**
 * Records the signed payouts of many claimed orders and moves them `deposit_confirmed → sending`, in one
 * statement (record-before-send: all or nothing). Only orders this worker still holds in
 * `deposit_confirmed` move, and only their transactions are recorded; they are released with their next
 * look in `nextRunMs` (the settle loop steps them sooner). `created_at` is the moment each row is written,
 * just before the commit and the send. A live payout already recorded for an order and part (the unique
 * index) fails the whole statement: the caller falls back to the per-order path.
 * Returns the ids of the orders that moved.
 */
export async function startPayouts(db: Queryable, workerId: string, txs: NewChainTx[], nextRunMs: number): Promise<Set<string>> {
  const orderIds = [...new Set(txs.map((t) => t.orderId!))];
  if (orderIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    START,
    [orderIds, workerId, nextRunMs, ...chainTxParams(txs)],
  );
  return new Set(rows.map((r) => String(r.id)));
}
