import type { Queryable } from '../db.ts';
import type { DepositInfo } from '../orders-store.ts';
import { orderWriter } from '../order-transitions.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type Movement } from './movements.ts';
import { assignments } from './start-payouts.ts';
import { statusesSql } from './final-statuses.ts';

export interface DepositConfirmation {
  id: string;
  deposit: DepositInfo;
  /** Payout due time drawn for it (kept if one was drawn before: the first draw wins). */
  dueAt: Date;
  /** Its deposit on the ledger, recorded with the transition (idempotent). */
  movement: Movement;
}

/** Who confirms: the lease holder (the worker's order loop, its deposit watch, the deposit hint) and the lease it takes or renews. */
export interface ConfirmClaim {
  workerId: string;
  leaseSeconds: number;
}

/** What `→ deposit_confirmed` writes besides the status: the deposit, the first due time drawn, the caller's lease. */
const CONFIRMED: Readonly<Record<string, string>> = {
  deposit: 'v.deposit',
  payout_due_at: 'coalesce(o.payout_due_at, v.due)',
  locked_by: '$4',
  locked_until: 'now() + make_interval(secs => $5)',
};

/** The deposit's ledger leg ($6…$11). */
const DEPOSIT_LEGS = `l AS (${LEDGER_INSERT_FROM_PARAMS(6)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)`;

/**
 * The claim: orders the caller holds or nobody holds (lease-order.ts' rule), compared under the row lock,
 * SKIP LOCKED as claims are.
 */
const CLAIM = `v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),
     s AS (
       SELECT o.id, o.status AS from_status
       FROM orders o
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ${statusesSql('awaitsDeposit')}
         AND (o.locked_by = $4 OR o.locked_until IS NULL OR o.locked_until < now())
       FOR UPDATE OF o SKIP LOCKED)`;

const WRITER = orderWriter('confirmDeposits', [['awaiting_deposit', 'deposit_detected', 'deposit_confirmed'], ['deposit_detected', 'deposit_confirmed']]);

const CONFIRM = WRITER.sql({
  route: ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed'],
  fromCount: 2,
  fromExpr: 's.from_status',
  before: CLAIM,
  set: assignments(CONFIRMED),
  from: 'FROM v JOIN s ON s.id = v.id',
  where: 'o.id = v.id',
  returning: 'o.payout_due_at',
  effects: DEPOSIT_LEGS,
  select: 'u.payout_due_at',
});

/**
 * The one writer of `awaiting_deposit | deposit_detected → deposit_confirmed`, for a batch: the order loop's (a batch of one too), the deposit watch's and the deposit hint's, each under
 * a lease holder of its own. The statement is the claim, the only coordination between them: each order
 * still awaiting its deposit (or with it detected) that the caller holds or nobody holds (SKIP LOCKED)
 * moves to `deposit_confirmed` under the caller's lease, with a `deposit_detected` history entry when it
 * skipped that status, its payout due time, its deposit's ledger leg and the change notification; an
 * order another holds is left to it.
 *
 * Returns the due time in force of every order confirmed.
 */
export async function confirmDeposits(
  db: Queryable,
  claim: ConfirmClaim,
  items: DepositConfirmation[],
): Promise<{ due: Map<string, Date> }> {
  if (items.length === 0) return { due: new Map() };
  const legs = legParams(movementRows(items.map((i) => i.movement)));
  const params = [
    items.map((i) => i.id),
    items.map((i) => JSON.stringify(i.deposit)),
    items.map((i) => i.dueAt),
    claim.workerId,
    claim.leaseSeconds,
    ...legs,
  ];
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date }>(CONFIRM, params);
  return { due: new Map(rows.map((r) => [String(r.id), r.payout_due_at])) };
}
