import type { Queryable } from '../db.ts';
import type { OrderRecord } from '../orders-store.ts';
import { orderWriter } from '../order-transitions.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type Movement } from './movements.ts';

export interface PayoutCompletion {
  id: string;
  payouts: OrderRecord['payouts'];
  /** The order's fee income, recorded with the transition (idempotent). */
  movement: Movement;
}

const WRITER = orderWriter('completePayouts', [['sending', 'completed']]);

const COMPLETE = WRITER.sql({
  route: ['sending', 'completed'],
  set: 'payouts = v.payouts, locked_by = NULL, locked_until = NULL',
  from: 'FROM unnest($1::bigint[], $2::jsonb[]) AS v(id, payouts)',
  where: 'o.id = v.id AND ($9::boolean OR o.locked_until IS NULL OR o.locked_until < now())',
  effects: `l AS (${LEDGER_INSERT_FROM_PARAMS(3)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)`,
});

/**
 * The one writer of `sending → completed`, for many orders in one statement: compare-and-set on `sending`,
 * with the history entry, the fee movement and the notification, the order released. Unless `held` (the
 * per-order step, which holds its order: a batch of one), only orders nobody holds move. Returns the ids
 * that moved; the others go the per-order way.
 */
export async function completePayouts(db: Queryable, items: PayoutCompletion[], held = false): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number }>(
    COMPLETE,
    [items.map((i) => i.id), items.map((i) => JSON.stringify(i.payouts)), ...legParams(legs), held],
  );
  return new Set(rows.map((r) => String(r.id)));
}
