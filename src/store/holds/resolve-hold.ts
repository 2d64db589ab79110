import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

/** The operator's three answers to a hold (docs/spec.md §12), each an edge out of `held`. */
export type HoldAction = 'release' | 'refund' | 'freeze';

/** Where each answer takes a held order; a release of one held before its refund goes back to `refunding`. */
export const TARGET = { release: 'deposit_confirmed', refund: 'refunding', freeze: 'frozen' } as const;

const WRITER = orderWriter('resolveHold', [['held', 'deposit_confirmed'], ['held', 'refunding'], ['held', 'frozen']]);

export type HoldTarget = 'deposit_confirmed' | 'refunding' | 'frozen';

const statements = new Map<string, string>();

function resolveSql(action: HoldAction, to: HoldTarget): string {
  let sql = statements.get(`${action}:${to}`);
  if (sql === undefined) {
    // Released: settlement goes on as if never held (no failure reason); refunded: the reason stays
    // `screening`, which the refund's status record shows. Both are due at once; frozen is final.
    const set = to === TARGET.freeze ? '' : action === 'release' && to === TARGET.release ? 'failure_reason = NULL, next_run_at = now()' : 'next_run_at = now()';
    sql = WRITER.sql({
      route: ['held', to],
      ...(set ? { set } : {}),
      where: 'o.id = $1',
      effects: `l AS (INSERT INTO screening_log (tracking_id, stage, result, actor, note, approved_by, at)
                 SELECT u.tracking_id, 'resolution', '${action}', $2, $3, $4, now() FROM u)`,
    });
    statements.set(`${action}:${to}`, sql);
  }
  return sql;
}

/**
 * One resolution of a held order, and its line in the screening log (who, the note, and for a four-eyes
 * resolution who approved it), in one statement: `held → deposit_confirmed | refunding | frozen`. False when the
 * order is not held (already resolved).
 */
export async function resolveHold(db: Queryable, id: string, action: HoldAction, to: HoldTarget, actor: string, note: string, approvedBy: string | null = null): Promise<boolean> {
  const { rows } = await db.query(resolveSql(action, to), [id, actor, note, approvedBy]);
  return rows.length > 0;
}

/**
 * The stage of the decision that held the order (its latest blocked or unanswered one of the order's own stages:
 * late funds found at its deposit account since are not what held it, and must not send a refund on to a payout).
 */
export async function heldAtStage(db: Queryable, trackingId: string): Promise<string | null> {
  const { rows } = await db.query<{ stage: string }>(
    `SELECT stage FROM screening_log WHERE tracking_id = $1 AND result IN ('blocked', 'error') AND stage IN ('deposit', 'payout', 'refund') ORDER BY id DESC LIMIT 1`,
    [trackingId],
  );
  return rows[0]?.stage ?? null;
}
