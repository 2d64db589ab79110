import type { Queryable } from '../db.ts';
import { transitionSql } from '../order-transitions.ts';
import { CHAIN_TX_INSERT_FROM_PARAMS, chainTxParams, type NewChainTx } from './chain-tx.ts';
import { confirmationParams, type DepositConfirmation } from './confirm-deposits.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows } from './movements.ts';

const CONFIRM_AND_START = transitionSql({
  route: ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending'],
  fromCount: 2,
  fromExpr: 's.from_status',
  to: { when: 's.pay', then: 'sending', else: 'deposit_confirmed' },
  before: `v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),
     p AS (SELECT DISTINCT order_id FROM unnest($15::bigint[]) AS p(order_id)),
     s AS (
       SELECT o.id, o.status AS from_status, (p.order_id IS NOT NULL AND (o.payout_due_at IS NULL OR o.payout_due_at <= clock_timestamp())) AS pay
       FROM orders o JOIN v ON v.id = o.id LEFT JOIN p ON p.order_id = o.id
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ('awaiting_deposit', 'deposit_detected')
         AND CASE WHEN $6::boolean THEN o.locked_by = $4 ELSE (o.locked_until IS NULL OR o.locked_until < now()) END
       FOR UPDATE OF o SKIP LOCKED)`,
  set: `deposit = v.deposit, payout_due_at = coalesce(o.payout_due_at, v.due),
         locked_by = CASE WHEN s.pay THEN NULL ELSE $4 END,
         locked_until = CASE WHEN s.pay THEN NULL ELSE now() + make_interval(secs => $5) END,
         attempts = CASE WHEN s.pay THEN 0 ELSE o.attempts END,
         next_run_at = CASE WHEN s.pay THEN now() + make_interval(secs => $7::double precision / 1000) ELSE o.next_run_at END`,
  from: 'FROM v JOIN s ON s.id = v.id',
  where: 'o.id = v.id',
  returning: 'o.payout_due_at, s.pay',
  effects: `l AS (${LEDGER_INSERT_FROM_PARAMS(8)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING),
     c AS (${CHAIN_TX_INSERT_FROM_PARAMS(14)} WHERE t.order_id IN (SELECT id FROM u WHERE pay))`,
  select: 'u.payout_due_at, u.pay',
});

/**
 * confirmDeposits and startPayouts in one statement, for orders paid as soon as they are confirmed (no
 * privacy delay: the due time drawn now is now, whatever the database's clock says): each order confirmed
 * here whose payout is in `txs`, unless a due time drawn earlier is still ahead, moves straight to
 * `sending` — history `deposit_detected` (if skipped), `deposit_confirmed`, `sending`; its deposit on
 * the ledger; its payout recorded (record-before-send) — and is released; the others stop
 * at `deposit_confirmed`, held by this worker, as with confirmDeposits. One write of each order row
 * instead of two: on PGlite the second statement was half of the time from a confirmed deposit to its
 * payout. Returns the due time in force of every order confirmed, and which of them moved to `sending`.
 */
export async function confirmDepositsAndStartPayouts(
  db: Queryable,
  workerId: string,
  leaseSeconds: number,
  held: boolean,
  items: DepositConfirmation[],
  txs: NewChainTx[],
  nextRunMs: number,
): Promise<{ due: Map<string, Date>; moved: Set<string> }> {
  if (items.length === 0) return { due: new Map(), moved: new Set() };
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date; pay: boolean }>(
    CONFIRM_AND_START,
    [...confirmationParams(workerId, leaseSeconds, held, items), nextRunMs, ...legParams(legs), ...chainTxParams(txs)],
  );
  return { due: new Map(rows.map((r) => [String(r.id), r.payout_due_at])), moved: new Set(rows.filter((r) => r.pay).map((r) => String(r.id))) };
}
