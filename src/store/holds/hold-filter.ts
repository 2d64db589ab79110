/**
 * What the operator may narrow the queue of holds to (docs/spec.md §12, `GET /admin/v1/holds`, issue 70), as the
 * WHERE clauses the listings and their counts share (list-holds.ts, fund-holds.ts). The queue is small (what
 * waits on an operator), so each filter is a clause `($n IS NULL OR …)` in one fixed text per statement.
 */
export interface HoldFilter {
  /** The stage of the finding that held it: `deposit | payout | refund` (orders), `late | fee` (funds). */
  stage?: string;
  result?: 'blocked' | 'error';
  /** The partner account: a held order's, the order late funds reached, a fee recipient's. */
  accountId?: string;
  /** Held at or after this time, and before that one (ISO 8601). */
  from?: string;
  to?: string;
  /** An address of the hold starts with this: a finding's, or a held order's sender or recipient. */
  addressPrefix?: string;
}

/** The filter's parameters, in the order the clauses below number them. */
export function holdFilterParams(f: HoldFilter = {}): (string | null)[] {
  return [f.accountId ?? null, f.from ?? null, f.to ?? null, f.stage ?? null, f.result ?? null, f.addressPrefix ?? null];
}

/**
 * Held orders (`o`, orders) matching the filter's parameters from `$n`. Stage and result are those of the
 * decision that held the order: its latest blocked or error finding, as the queue shows it.
 */
export function heldOrderWhere(n: number): string {
  const [account, from, to, stage, result, prefix] = [0, 1, 2, 3, 4, 5].map((i) => `$${n + i}`);
  return `(${account}::text IS NULL OR o.account_id = ${account})
    AND (${from}::timestamptz IS NULL OR o.updated_at >= ${from}) AND (${to}::timestamptz IS NULL OR o.updated_at < ${to})
    AND ((${stage}::text IS NULL AND ${result}::text IS NULL) OR EXISTS (
      SELECT 1 FROM (SELECT s.stage, s.result FROM screening_log s WHERE s.tracking_id = o.tracking_id AND s.result IN ('blocked', 'error') ORDER BY s.id DESC LIMIT 1) d
       WHERE (${stage} IS NULL OR d.stage = ${stage}) AND (${result} IS NULL OR d.result = ${result})))
    AND (${prefix}::text IS NULL OR starts_with(o.sender, ${prefix}) OR starts_with(o.recipient, ${prefix})
      OR EXISTS (SELECT 1 FROM screening_log s WHERE s.tracking_id = o.tracking_id AND s.result IN ('blocked', 'error') AND starts_with(s.address, ${prefix})))`;
}

/** A fund hold's partner account: the order's the late funds reached, or the fee hold's subject's (`payable:partner:<accountId>:<address>`). */
export const FUND_HOLD_ACCOUNT = `coalesce(o.account_id, CASE WHEN h.kind = 'fee' THEN nullif(split_part(h.subject, ':', 3), '') END)`;

/** Fund holds (`h`, screening_holds, joined to their order `o`) matching the filter's parameters from `$n`. */
export function fundHoldWhere(n: number): string {
  const [account, from, to, stage, result, prefix] = [0, 1, 2, 3, 4, 5].map((i) => `$${n + i}`);
  return `(${account}::text IS NULL OR ${FUND_HOLD_ACCOUNT} = ${account})
    AND (${from}::timestamptz IS NULL OR h.created_at >= ${from}) AND (${to}::timestamptz IS NULL OR h.created_at < ${to})
    AND (${stage}::text IS NULL OR h.stage = ${stage}) AND (${result}::text IS NULL OR h.result = ${result})
    AND (${prefix}::text IS NULL OR starts_with(h.address, ${prefix}))`;
}
