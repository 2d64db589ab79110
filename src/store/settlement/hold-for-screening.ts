import type { OrderStatus } from '../../domain/order-state.ts';
import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

/** What screening found, as the log keeps it (docs/spec.md §12). */
export interface HoldVerdict {
  stage: 'deposit' | 'payout' | 'refund';
  result: 'blocked' | 'error';
  field: string | null;
  address: string | null;
  list: string | null;
  version: string | null;
  reason: string | null;
}

export type HoldableStatus = Extract<OrderStatus, 'deposit_confirmed' | 'swapping' | 'sending' | 'refunding'>;

const WRITER = orderWriter('holdForScreening', [['deposit_confirmed', 'held'], ['swapping', 'held'], ['sending', 'held'], ['refunding', 'held']]);

const statements = new Map<HoldableStatus, string>();

function holdSql(from: HoldableStatus): string {
  let sql = statements.get(from);
  if (sql === undefined) {
    sql = WRITER.sql({
      route: [from, 'held'],
      // Parked until the operator's resolution (claimDueOrders never reaches `infinity`), lease given back.
      set: `failure_reason = 'screening', next_run_at = 'infinity'::timestamptz, locked_by = NULL, locked_until = NULL`,
      where: 'o.id = $1',
      effects: `l AS (INSERT INTO screening_log (tracking_id, stage, field, address, result, list, version, reason, actor, at)
                 SELECT u.tracking_id, $2, $3, $4, $5, $6, $7, $8, $9, now() FROM u)`,
    });
    statements.set(from, sql);
  }
  return sql;
}

/**
 * `deposit_confirmed | swapping | sending | refunding → held` (`failureReason: screening`), before anything of the
 * order is sent, with the decision in the screening log, in one statement: funds untouched, the order
 * parked for an operator. False when the order was no longer in `from`.
 */
export async function holdForScreening(db: Queryable, id: string, from: HoldableStatus, v: HoldVerdict, actor: string): Promise<boolean> {
  const { rows } = await db.query(holdSql(from), [id, v.stage, v.field, v.address, v.result, v.list, v.version, v.reason, actor]);
  return rows.length > 0;
}
