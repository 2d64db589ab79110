import type { OrderStatus } from '../../domain/order-state.ts';
import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';
import { CHAIN_TX_INSERT_FROM_PARAMS, chainTxParams, type NewChainTx } from './chain-tx.ts';

/** The statuses an order is paid from: a deposit confirmed, or a swap done. */
export type PayableStatus = Extract<OrderStatus, 'deposit_confirmed' | 'swapping'>;

/**
 * What `→ sending` writes besides the status, column by column (composed by confirmDeposits too): the
 * order released, its next look `$n` ms away (the settle loop steps it sooner).
 */
export const STARTED = (n: number): Readonly<Record<string, string>> => ({
  locked_by: 'NULL',
  locked_until: 'NULL',
  attempts: '0',
  next_run_at: `now() + make_interval(secs => $${n}::double precision / 1000)`,
});

/** The payouts' records (record-before-send), from the ten arrays at $n…, for the orders `moved` lists. */
export const PAYOUT_RECORDS = (n: number, moved: string): string => `c AS (${CHAIN_TX_INSERT_FROM_PARAMS(n)} WHERE t.order_id IN (${moved}))`;

/** `col = expr, …` of a column record. */
export const assignments = (columns: Readonly<Record<string, string>>): string =>
  Object.entries(columns)
    .map(([c, e]) => `${c} = ${e}`)
    .join(',\n         ');

/**
 * A private amount's payout that goes out with no release stamped: its fallback due time (the end of its
 * hold, and a pass, and its spread) came before any release pass decided it, as when passes run late on a
 * loaded machine. It goes as a release of its own, so it is counted where it lands like any other
 * (releasedWith, the receipt) and its partner is told of it (order.released), never left uncounted.
 */
const UNRELEASED_PRIVATE = `o.class_released_at IS NULL AND o.quote -> 'privacy' ->> 'standard' = 'true'`;

const WRITER = orderWriter('startPayouts', [['deposit_confirmed', 'sending'], ['swapping', 'sending']]);

const statements = new Map<PayableStatus, string>();

function startSql(from: PayableStatus): string {
  let sql = statements.get(from);
  if (sql === undefined) {
    sql = WRITER.sql({
      route: [from, 'sending'],
      set: `${assignments(STARTED(3))},
         class_released_at = CASE WHEN ${UNRELEASED_PRIVATE} THEN now() ELSE o.class_released_at END,
         class_release_size = CASE WHEN ${UNRELEASED_PRIVATE} THEN 1 ELSE o.class_release_size END`,
      where: 'o.id = ANY($1::bigint[]) AND o.locked_by = $2',
      effects: PAYOUT_RECORDS(4, 'SELECT id FROM u'),
    });
    statements.set(from, sql);
  }
  return sql;
}

/**
 * The one writer of `deposit_confirmed | swapping → sending` (the order loop's batch, and the payout queue
 * with a batch of one): records the signed payouts of claimed orders and moves them, in one statement
 * (record-before-send: all or nothing). Only orders this worker still holds in `from` move, and only their
 * transactions are recorded; they are released with their next look in `nextRunMs`. `created_at` is the
 * moment each row is written, just before the commit and the send. A live payout already recorded for an
 * order and part, or the same bytes (the unique indexes), fails the whole statement: the caller falls back
 * to the per-order path, or (a batch of one) counts the order as not moved.
 * Returns the ids of the orders that moved.
 */
export async function startPayouts(db: Queryable, workerId: string, txs: NewChainTx[], nextRunMs: number, from: PayableStatus = 'deposit_confirmed'): Promise<Set<string>> {
  const orderIds = [...new Set(txs.map((t) => t.orderId!))];
  if (orderIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(startSql(from), [orderIds, workerId, nextRunMs, ...chainTxParams(txs)]);
  return new Set(rows.map((r) => String(r.id)));
}
