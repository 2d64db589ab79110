import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

/** The operator's three answers to a hold (docs/spec.md §12), each an edge out of `held`. */
export type HoldAction = 'release' | 'refund' | 'freeze';

const TARGET = { release: 'deposit_confirmed', refund: 'refunding', freeze: 'frozen' } as const;

const WRITER = orderWriter('resolveHold', [['held', 'deposit_confirmed'], ['held', 'refunding'], ['held', 'frozen']]);

const statements = new Map<HoldAction, string>();

function resolveSql(action: HoldAction): string {
  let sql = statements.get(action);
  if (sql === undefined) {
    // Released: settlement goes on as if never held (no failure reason); refunded: the reason stays
    // `screening`, which the refund's status record shows. Both are due at once; frozen is final.
    const set = { release: 'failure_reason = NULL, next_run_at = now()', refund: 'next_run_at = now()', freeze: '' }[action];
    sql = WRITER.sql({
      route: ['held', TARGET[action]],
      ...(set ? { set } : {}),
      where: 'o.id = $1',
      effects: `l AS (INSERT INTO screening_log (tracking_id, stage, result, actor, note)
                 SELECT u.tracking_id, 'resolution', '${action}', $2, $3 FROM u)`,
    });
    statements.set(action, sql);
  }
  return sql;
}

/**
 * One resolution of a held order, and its line in the screening log (who, the note), in one statement:
 * `held → deposit_confirmed | refunding | frozen`. False when the order is not held (already resolved).
 */
export async function resolveHold(db: Queryable, id: string, action: HoldAction, actor: string, note: string): Promise<boolean> {
  const { rows } = await db.query(resolveSql(action), [id, actor, note]);
  return rows.length > 0;
}
