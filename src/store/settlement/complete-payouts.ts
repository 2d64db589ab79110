import type { Queryable } from '../db.ts';
import { ORDER_CHANGED_CHANNEL, type OrderRecord } from '../orders-store.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type Movement } from './movements.ts';

export interface PayoutCompletion {
  id: string;
  payouts: OrderRecord['payouts'];
  /** The order's fee income, recorded with the transition (idempotent). */
  movement: Movement;
}

/**
 * `sending → completed` for many orders in one statement: compare-and-set on `sending`, only for orders
 * nobody holds (a step holding one completes it itself), with the history entry, the fee movement
 * and the notification. Returns the ids that moved; the others go the per-order way.
 */
export async function completePayouts(db: Queryable, items: PayoutCompletion[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number }>(
    `WITH u AS (
       UPDATE orders o SET status = 'completed', updated_at = clock_timestamp(), payouts = v.payouts, locked_by = NULL, locked_until = NULL
       FROM unnest($1::bigint[], $2::jsonb[]) AS v(id, payouts)
       WHERE o.id = v.id AND o.status = 'sending' AND (o.locked_until IS NULL OR o.locked_until < now())
       RETURNING o.id, o.updated_at, o.tracking_id),
     h AS (INSERT INTO order_history (order_id, status, at) SELECT id, 'completed', updated_at FROM u),
     l AS (${LEDGER_INSERT_FROM_PARAMS(3)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)
     SELECT u.id, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id) FROM u`,
    [items.map((i) => i.id), items.map((i) => JSON.stringify(i.payouts)), ...legParams(legs)],
  );
  return new Set(rows.map((r) => String(r.id)));
}
