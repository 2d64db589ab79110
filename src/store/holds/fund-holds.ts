import { allOrNothing, type Db, type Queryable } from '../db.ts';
import { recordMovement } from '../settlement/record-movements.ts';
import { recordScreening } from '../screening-log-store.ts';
import type { HoldVerdict } from '../settlement/hold-for-screening.ts';
import { FUND_HOLD_ACCOUNT, fundHoldWhere, holdFilterParams, type HoldFilter } from './hold-filter.ts';

/** The ledger account held late funds are booked on (negative as a liability), apart from what is owed back to senders. */
export const HELD_FUNDS_ACCOUNT = 'held:screening';

/**
 * docs/spec.md §12 holds that are not an order's status (migration 024, `screening_holds`): late funds held
 * instead of refunded (`late`), and a partner's fee recipient held (`fee`: its fees keep accruing). One open
 * hold per subject; the operator's answers and the listing are here.
 */
export interface FundHold {
  holdId: string;
  kind: 'late' | 'fee';
  subject: string;
  trackingId: string | null;
  assetId: string;
  amount: string;
  status: string;
  heldAt: string;
  /** The partner account concerned: the account of the order the late funds reached, or the fee recipient's. */
  accountId: string | null;
  decision: { stage: string; result: string; field: string | null; address: string | null; list: string | null; version: string | null; reason: string | null };
}

/** What screening found that holds funds: an order's hold verdict, at a stage of its own (late funds, fees). */
export type FundHoldFinding = Omit<HoldVerdict, 'stage'> & { stage: string };

/** Opens a fee recipient's hold (nothing when one is open already). True when this call opened it. */
export async function holdFeeRecipient(db: Queryable, account: string, assetId: string, owed: bigint, f: FundHoldFinding): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO screening_holds (kind, subject, asset_id, amount, status, stage, result, field, address, list, version, reason, created_at)
     VALUES ('fee', $1, $2, $3, 'held', $4, $5, $6, $7, $8, $9, $10, now())
     ON CONFLICT (kind, subject) WHERE status IN ('held', 'refund_due') DO UPDATE SET amount = EXCLUDED.amount
     RETURNING (xmax = 0) AS opened`,
    [account, assetId, owed.toString(), f.stage, f.result, f.field, f.address, f.list, f.version, f.reason],
  );
  return (rows[0] as { opened?: boolean } | undefined)?.opened === true;
}

/** A fee recipient that screens clear again: its open hold ends (`cleared`), and it is paid as before. */
export async function clearFeeHold(db: Queryable, account: string): Promise<void> {
  await db.query(`UPDATE screening_holds SET status = 'cleared', resolved_at = now(), resolved_by = 'hush' WHERE kind = 'fee' AND subject = $1 AND status = 'held'`, [account]);
}

/** Open fund holds, oldest first: those matching `filter`, after the hold `afterId` (the page before's last). */
export async function listFundHolds(db: Queryable, limit = 100, filter: HoldFilter = {}, afterId?: string): Promise<FundHold[]> {
  const { rows } = await db.query<FundHold>(
    `SELECT h.id::text AS "holdId", h.kind, h.subject, h.tracking_id AS "trackingId", h.asset_id AS "assetId", h.amount::text AS amount, h.status,
            to_char(h.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "heldAt",
            ${FUND_HOLD_ACCOUNT} AS "accountId",
            json_build_object('stage', h.stage, 'result', h.result, 'field', h.field, 'address', h.address, 'list', h.list, 'version', h.version, 'reason', h.reason) AS decision
       FROM screening_holds h LEFT JOIN orders o ON o.id = h.order_id WHERE h.status = 'held' AND ${fundHoldWhere(2)}
        AND ($8::bigint IS NULL OR h.id > $8::bigint)
      ORDER BY h.id LIMIT $1`,
    // 1001: a page of the most the API lists, and one more that says another page exists.
    [Math.min(Math.max(limit, 1), 1001), ...holdFilterParams(filter), afterId ?? null],
  );
  return rows;
}

/** How many fund holds are open (that match `filter`): the listing stops at its limit. */
export async function countFundHolds(db: Queryable, filter: HoldFilter = {}): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM screening_holds h LEFT JOIN orders o ON o.id = h.order_id WHERE h.status = 'held' AND ${fundHoldWhere(1)}`,
    holdFilterParams(filter),
  );
  return Number(rows[0]?.n ?? 0);
}

export async function getFundHold(db: Queryable, id: string): Promise<FundHold | null> {
  const { rows } = await db.query<FundHold>(
    `SELECT id::text AS "holdId", kind, subject, tracking_id AS "trackingId", asset_id AS "assetId", amount::text AS amount, status,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "heldAt",
            json_build_object('stage', stage, 'result', result, 'field', field, 'address', address, 'list', list, 'version', version, 'reason', reason) AS decision
       FROM screening_holds WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** The operator's answer to a fund hold, compare-and-set on `held`: false when it was resolved already. */
export async function resolveFundHold(db: Queryable, id: string, to: 'released' | 'refund_due' | 'frozen', actor: string, note: string): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE screening_holds SET status = $2, resolved_at = now(), resolved_by = $3, note = $4 WHERE id = $1 AND status = 'held' RETURNING id`,
    [id, to, actor, note],
  );
  return rows.length > 0;
}

/**
 * Late funds held instead of refunded: the hold, its screening-log row, and its ledger movement (owed to no
 * sender until resolved: `external:senders` +amount, `held:screening` −amount), in the caller's transaction.
 * False when this sweep's item was held already.
 */
export async function holdLateFunds(tx: Queryable, subject: string, o: { id: string; trackingId: string; sourceAssetId: string }, amount: bigint, f: FundHoldFinding): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO screening_holds (kind, subject, tracking_id, order_id, asset_id, amount, status, stage, result, field, address, list, version, reason, created_at)
     VALUES ('late', $1, $2, $3, $4, $5, 'held', $6, $7, $8, $9, $10, $11, $12, now()) ON CONFLICT DO NOTHING RETURNING id`,
    [subject, o.trackingId, o.id, o.sourceAssetId, amount.toString(), f.stage, f.result, f.field, f.address, f.list, f.version, f.reason],
  );
  if (rows.length === 0) return false;
  await recordLateFinding(tx, o.trackingId, f);
  await recordMovement(tx, `held:${subject}`, 'held', [
    { account: 'external:senders', assetId: o.sourceAssetId, amount },
    { account: HELD_FUNDS_ACCOUNT, assetId: o.sourceAssetId, amount: -amount },
  ], o.id);
  return true;
}

/** A late-funds finding in the screening log, as the worker (`hush`) found it. */
function recordLateFinding(tx: Queryable, trackingId: string, f: FundHoldFinding): Promise<void> {
  return recordScreening(tx, { trackingId, stage: 'late', field: f.field, address: f.address, result: f.result, list: f.list, version: f.version, reason: f.reason, actor: 'hush' });
}

/** Released late funds are read this many at a time (a pass pages through them all). */
export const LATE_FUNDS_PAGE = 20;

/** Late funds whose refund an operator allowed (`refund_due`), oldest first. */
export async function lateFundsDue(db: Queryable, afterId = '0'): Promise<{ id: string; subject: string; orderId: string; amount: bigint }[]> {
  const { rows } = await db.query<{ id: string; subject: string; order_id: string; amount: string }>(
    `SELECT id::text AS id, subject, order_id::text AS order_id, amount::text AS amount FROM screening_holds
     WHERE kind = 'late' AND status = 'refund_due' AND screening_holds.id > $1::bigint ORDER BY screening_holds.id LIMIT ${LATE_FUNDS_PAGE}`,
    [afterId],
  );
  return rows.map((r) => ({ id: r.id, subject: r.subject, orderId: r.order_id, amount: BigInt(r.amount) }));
}

/**
 * `refund_due → held` with a finding the operator's resolution did not cover, and its screening-log row,
 * compare-and-set: false when the refund was recorded meanwhile. The funds never left `held:screening`.
 */
export async function reholdLateFunds(db: Db, id: string, trackingId: string, f: FundHoldFinding): Promise<boolean> {
  return allOrNothing(db, async (tx) => {
    const { rows } = await tx.query(
      `UPDATE screening_holds SET status = 'held', stage = $2, result = $3, field = $4, address = $5, list = $6, version = $7, reason = $8,
         resolved_at = NULL, resolved_by = NULL, note = NULL
       WHERE id = $1 AND status = 'refund_due' RETURNING id`,
      [id, f.stage, f.result, f.field, f.address, f.list, f.version, f.reason],
    );
    if (rows.length === 0) return false;
    await recordLateFinding(tx, trackingId, f);
    return true;
  });
}

/** `refund_due → refunded`, compare-and-set: false when another worker recorded it. */
export async function markLateFundsRefunded(tx: Queryable, id: string): Promise<boolean> {
  const { rows } = await tx.query(`UPDATE screening_holds SET status = 'refunded' WHERE id = $1 AND status = 'refund_due' RETURNING id`, [id]);
  return rows.length > 0;
}
