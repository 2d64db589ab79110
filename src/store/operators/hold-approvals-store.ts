import type { Queryable } from '../db.ts';

/** What a four-eyes resolution is of: a held order, or a fund hold (late funds, a fee recipient). */
export type ApprovalTarget = { trackingId: string } | { fundHoldId: string };

/** A resolution proposed by one operator, awaiting (or decided by) another (docs/spec.md §12 "Four eyes"). */
export interface HoldApproval {
  approvalId: string;
  trackingId: string | null;
  fundHoldId: string | null;
  action: 'release' | 'refund' | 'freeze';
  note: string;
  proposedBy: string;
  proposedByOperator: string | null;
  proposedAt: string;
  status: 'awaiting' | 'approved' | 'rejected' | 'withdrawn';
  decidedBy: string | null;
  decidedAt: string | null;
  decisionNote: string | null;
}

const AT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const VIEW = `a.id::text AS "approvalId", a.tracking_id AS "trackingId", a.fund_hold_id::text AS "fundHoldId", a.action, a.note,
  a.proposed_by AS "proposedBy", a.proposed_by_operator AS "proposedByOperator", ${AT('a.proposed_at')} AS "proposedAt", a.status,
  a.decided_by AS "decidedBy", ${AT('a.decided_at')} AS "decidedAt", a.decision_note AS "decisionNote"`;

/** Records a proposal; null when one already awaits for this hold (one at a time: decide or withdraw it first). */
export async function proposeApproval(
  db: Queryable,
  target: ApprovalTarget,
  p: { action: HoldApproval['action']; note: string; proposedBy: string; proposedByOperator: string | null },
): Promise<HoldApproval | null> {
  const { rows } = await db.query<HoldApproval>(
    `INSERT INTO hold_approvals AS a (tracking_id, fund_hold_id, action, note, proposed_by, proposed_by_operator, proposed_at, status)
     VALUES ($1, $2::bigint, $3, $4, $5, $6, now(), 'awaiting') ON CONFLICT DO NOTHING RETURNING ${VIEW}`,
    ['trackingId' in target ? target.trackingId : null, 'fundHoldId' in target ? target.fundHoldId : null, p.action, p.note, p.proposedBy, p.proposedByOperator],
  );
  return rows[0] ?? null;
}

export async function getApproval(db: Queryable, approvalId: string): Promise<HoldApproval | null> {
  const { rows } = await db.query<HoldApproval>(`SELECT ${VIEW} FROM hold_approvals a WHERE a.id = $1::bigint`, [approvalId]);
  return rows[0] ?? null;
}

/** The proposal awaiting for a hold, if any. */
export async function awaitingFor(db: Queryable, target: ApprovalTarget): Promise<HoldApproval | null> {
  const { rows } = await db.query<HoldApproval>(
    'trackingId' in target
      ? `SELECT ${VIEW} FROM hold_approvals a WHERE a.tracking_id = $1 AND a.status = 'awaiting'`
      : `SELECT ${VIEW} FROM hold_approvals a WHERE a.fund_hold_id = $1::bigint AND a.status = 'awaiting'`,
    ['trackingId' in target ? target.trackingId : target.fundHoldId],
  );
  return rows[0] ?? null;
}

/** Every proposal awaiting a second operator, oldest first (the queue shows them on their holds). */
export async function listAwaiting(db: Queryable, limit = 1000): Promise<HoldApproval[]> {
  const { rows } = await db.query<HoldApproval>(`SELECT ${VIEW} FROM hold_approvals a WHERE a.status = 'awaiting' ORDER BY a.id LIMIT $1`, [limit]);
  return rows;
}

/** Decides an awaiting proposal (compare-and-set on `awaiting`): false when it was decided meanwhile. */
export async function decideApproval(db: Queryable, approvalId: string, status: 'approved' | 'rejected' | 'withdrawn', decidedBy: string, note: string | null): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE hold_approvals SET status = $2, decided_by = $3, decided_at = now(), decision_note = $4 WHERE id = $1::bigint AND status = 'awaiting' RETURNING id`,
    [approvalId, status, decidedBy, note],
  );
  return rows.length > 0;
}
