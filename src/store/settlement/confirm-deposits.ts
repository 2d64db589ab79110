import type { Queryable } from '../db.ts';
import type { DepositInfo } from '../orders-store.ts';
import { transitionSql } from '../order-transitions.ts';
import { chainTxParams, type NewChainTx } from './chain-tx.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type Movement } from './movements.ts';
import { assignments, PAYOUT_RECORDS, STARTED } from './start-payouts.ts';

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

/** The payouts started in the same statement (no privacy delay): their signed transactions, the next look. */
export interface PayoutStart {
  txs: NewChainTx[];
  nextRunMs: number;
}

/** What `→ deposit_confirmed` writes besides the status: the deposit, the first due time drawn, the caller's lease. */
const CONFIRMED: Readonly<Record<string, string>> = {
  deposit: 'v.deposit',
  payout_due_at: 'coalesce(o.payout_due_at, v.due)',
  locked_by: '$4',
  locked_until: 'now() + make_interval(secs => $5)',
};

/** The deposit's ledger leg ($6…$11), written once for both statements. */
const DEPOSIT_LEGS = `l AS (${LEDGER_INSERT_FROM_PARAMS(6)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)`;

/**
 * The claim of both statements: orders the caller holds or nobody holds (hold-order.ts' rule), compared
 * under the row lock, SKIP LOCKED as claims are; `pay` (composed): which move on to `sending`.
 */
function claimCtes(pay: string | null): string {
  return `v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),${pay ? `\n     ${pay},` : ''}
     s AS (
       SELECT o.id, o.status AS from_status${pay ? `, (p.order_id IS NOT NULL AND (o.payout_due_at IS NULL OR o.payout_due_at <= clock_timestamp())) AS pay` : ''}
       FROM orders o${pay ? ' LEFT JOIN p ON p.order_id = o.id' : ''}
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ('awaiting_deposit', 'deposit_detected')
         AND (o.locked_by = $4 OR o.locked_until IS NULL OR o.locked_until < now())
       FOR UPDATE OF o SKIP LOCKED)`;
}

const CONFIRM = transitionSql({
  route: ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed'],
  fromCount: 2,
  fromExpr: 's.from_status',
  before: claimCtes(null),
  set: assignments(CONFIRMED),
  from: 'FROM v JOIN s ON s.id = v.id',
  where: 'o.id = v.id',
  returning: 'o.payout_due_at',
  effects: DEPOSIT_LEGS,
  select: 'u.payout_due_at',
});

/** Each column: startPayouts' value for the rows that go on to `sending`, the confirmation's (or the row's own) for the others. */
function composed(): Readonly<Record<string, string>> {
  const started = STARTED(12);
  const out: Record<string, string> = {};
  for (const col of new Set([...Object.keys(CONFIRMED), ...Object.keys(started)])) {
    const paid = started[col] ?? CONFIRMED[col]!;
    const confirmed = CONFIRMED[col] ?? `o.${col}`;
    out[col] = paid === confirmed ? paid : `CASE WHEN s.pay THEN ${paid} ELSE ${confirmed} END`;
  }
  return out;
}

// CONFIRM and startPayouts' `→ sending` in one statement ($12: next look, $13…$22: the payouts).
const CONFIRM_AND_START = transitionSql({
  route: ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending'],
  fromCount: 2,
  fromExpr: 's.from_status',
  to: { when: 's.pay', then: 'sending', else: 'deposit_confirmed' },
  before: claimCtes('p AS (SELECT DISTINCT order_id FROM unnest($14::bigint[]) AS p(order_id))'),
  set: assignments(composed()),
  from: 'FROM v JOIN s ON s.id = v.id',
  where: 'o.id = v.id',
  returning: 'o.payout_due_at, s.pay',
  effects: `${DEPOSIT_LEGS},\n     ${PAYOUT_RECORDS(13, 'SELECT id FROM u WHERE pay')}`,
  select: 'u.payout_due_at, u.pay',
});

/**
 * The one writer of `awaiting_deposit | deposit_detected → deposit_confirmed` (and, composed, `→ sending`),
 * for a batch: the order loop's (a batch of one too), the deposit watch's and the deposit hint's, each under
 * a lease holder of its own. The statement is the claim, the only coordination between them: each order
 * still awaiting its deposit (or with it detected) that the caller holds or nobody holds (SKIP LOCKED)
 * moves to `deposit_confirmed` under the caller's lease, with a `deposit_detected` history entry when it
 * skipped that status, its payout due time, its deposit's ledger leg and the change notification; an
 * order another holds is left to it.
 *
 * `start` (no privacy delay: the due time drawn now is now): startPayouts composed into the same
 * statement, so each order confirmed whose payout is in `start.txs`, unless a due time drawn earlier is
 * still ahead, moves on to `sending` — history `deposit_confirmed`, `sending`; its payout recorded; the
 * order released — and the others stop at `deposit_confirmed`. One write of each order row instead of two:
 * on PGlite the second statement was half of the time from a confirmed deposit to its payout.
 *
 * Returns the due time in force of every order confirmed, and which of them moved to `sending`.
 */
export async function confirmDeposits(
  db: Queryable,
  claim: ConfirmClaim,
  items: DepositConfirmation[],
  start?: PayoutStart,
): Promise<{ due: Map<string, Date>; moved: Set<string> }> {
  if (items.length === 0) return { due: new Map(), moved: new Set() };
  const legs = legParams(movementRows(items.map((i) => i.movement)));
  const params = [
    items.map((i) => i.id),
    items.map((i) => JSON.stringify(i.deposit)),
    items.map((i) => i.dueAt),
    claim.workerId,
    claim.leaseSeconds,
    ...legs,
  ];
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date; pay?: boolean }>(
    start ? CONFIRM_AND_START : CONFIRM,
    start ? [...params, start.nextRunMs, ...chainTxParams(start.txs)] : params,
  );
  return { due: new Map(rows.map((r) => [String(r.id), r.payout_due_at])), moved: new Set(rows.filter((r) => r.pay === true).map((r) => String(r.id))) };
}
