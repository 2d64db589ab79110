import type { Queryable } from '../db.ts';
import { statusesSql } from './final-statuses.ts';

export interface Release {
  id: string;
  delayMs?: number;
  at?: Date;
  afterError?: boolean;
}

/** Gives an order back with its next run time; `afterError` backs off exponentially (computed in SQL). */
export async function releaseOrder(db: Queryable, id: string, workerId: string, opts: { delayMs?: number; at?: Date; afterError?: boolean }): Promise<void> {
  await releaseOrders(db, workerId, [{ id, ...opts }]);
}

/** releaseOrder for many orders in one statement (same rules per order). */
export async function releaseOrders(db: Queryable, workerId: string, items: Release[]): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `UPDATE orders o SET locked_by = NULL, locked_until = NULL,
       attempts = CASE WHEN v.after_error THEN o.attempts ELSE 0 END,
       next_run_at = CASE
         -- Held for an operator (docs/spec.md §12): only the resolution wakes it.
         WHEN o.status IN ${statusesSql('operatorHold')} THEN 'infinity'::timestamptz
         WHEN v.after_error THEN now() + least(power(2, least(o.attempts, 10)) * 0.25, 30) * interval '1 second'
         -- A class release may have brought the payout forward since the worker read its due time.
         WHEN v.at IS NOT NULL AND o.status IN ${statusesSql('awaitsPayout')} THEN least(v.at, coalesce(o.payout_due_at, v.at))
         WHEN v.at IS NOT NULL THEN v.at
         ELSE now() + make_interval(secs => v.delay_ms / 1000) END
     FROM unnest($2::bigint[], $3::double precision[], $4::timestamptz[], $5::boolean[]) AS v(id, delay_ms, at, after_error)
     WHERE o.id = v.id AND o.locked_by = $1`,
    [workerId, items.map((i) => i.id), items.map((i) => i.delayMs ?? 0), items.map((i) => i.at ?? null), items.map((i) => i.afterError ?? false)],
  );
}
