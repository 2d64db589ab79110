import type { Queryable } from '../db.ts';
import type { DepositInfo } from '../orders-store.ts';
import { transitionSql } from '../order-transitions.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type Movement } from './movements.ts';

export interface DepositConfirmation {
  id: string;
  deposit: DepositInfo;
  /** Payout due time drawn for it (kept if one was drawn before: the first draw wins). */
  dueAt: Date;
  /** Its deposit on the ledger, recorded with the transition (idempotent). */
  movement: Movement;
}

/** $1…$6 of both deposit confirmations (this one and confirmDepositsAndStartPayouts): the orders, their deposits and due times, the worker's claim. */
export function confirmationParams(workerId: string, leaseSeconds: number, held: boolean, items: DepositConfirmation[]): unknown[] {
  return [items.map((i) => i.id), items.map((i) => JSON.stringify(i.deposit)), items.map((i) => i.dueAt), workerId, leaseSeconds, held];
}

const CONFIRM = transitionSql({
  route: ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed'],
  fromCount: 2,
  fromExpr: 's.from_status',
  before: `v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),
     s AS (
       SELECT o.id, o.status AS from_status FROM orders o
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ('awaiting_deposit', 'deposit_detected')
         AND CASE WHEN $13::boolean THEN true WHEN $6::boolean THEN o.locked_by = $4 ELSE (o.locked_until IS NULL OR o.locked_until < now()) END
       FOR UPDATE SKIP LOCKED)`,
  set: `deposit = v.deposit, payout_due_at = coalesce(o.payout_due_at, v.due),
         locked_by = CASE WHEN $13::boolean THEN o.locked_by ELSE $4 END,
         locked_until = CASE WHEN $13::boolean THEN o.locked_until ELSE now() + make_interval(secs => $5) END`,
  from: 'FROM v JOIN s ON s.id = v.id',
  where: 'o.id = v.id',
  returning: 'o.payout_due_at',
  effects: `l AS (${LEDGER_INSERT_FROM_PARAMS(7)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)`,
  select: 'u.payout_due_at',
});

/**
 * Confirms many deposits in one statement: each order still awaiting its deposit (or with it detected)
 * moves, when `held`, if this worker's step holds it (the caller claimed it), else if nobody holds it
 * (the statement claims it: SKIP LOCKED, as claims), to
 * `deposit_confirmed` under this worker's lease, with a `deposit_detected` history entry when it skipped
 * that status and a `deposit_confirmed` one, its payout due time, its deposit's ledger movement and the
 * change notification. The status is compared under the row lock: the compare-and-set. Returns the payout
 * due time in force of every order that moved (those are now held by this worker). `leaseFree` (the
 * deposit hint, which is no worker): the order moves whoever holds it, and its lease is left as it is.
 */
export async function confirmDeposits(db: Queryable, workerId: string, leaseSeconds: number, held: boolean, items: DepositConfirmation[], leaseFree = false): Promise<Map<string, Date>> {
  if (items.length === 0) return new Map();
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date }>(CONFIRM, [
    ...confirmationParams(workerId, leaseSeconds, held, items),
    ...legParams(legs),
    leaseFree,
  ]);
  return new Map(rows.map((r) => [String(r.id), r.payout_due_at]));
}
