import type { Queryable } from './db.ts';
import { logFilterSql, type ScreeningLogFilter } from './screening-log-filter.ts';

/** One row of the screening log (docs/spec.md §12). */
export interface ScreeningLogEntry {
  id: string;
  at: string;
  trackingId: string | null;
  stage: 'quote' | 'deposit' | 'payout' | 'refund' | 'late' | 'fee' | 'resolution';
  field: string | null;
  address: string | null;
  result: 'clear' | 'blocked' | 'error' | 'release' | 'refund' | 'freeze';
  list: string | null;
  version: string | null;
  reason: string | null;
  actor: string;
  note: string | null;
}

/** A row as the operator's log shows it: with the partner account, a quote refusal's own or its order's. */
/** A log row as the admin API lists it: with its partner account, and for a four-eyes resolution who approved it. */
export type ScreeningLogRow = ScreeningLogEntry & { accountId: string | null; approvedBy: string | null };

export type NewScreeningLogEntry = Omit<ScreeningLogEntry, 'id' | 'at' | 'trackingId' | 'field' | 'address' | 'list' | 'version' | 'reason' | 'note'> &
  Partial<Pick<ScreeningLogEntry, 'trackingId' | 'field' | 'address' | 'list' | 'version' | 'reason' | 'note'>> & {
    /** The partner account of a row without an order (a quote refused at screening); an order's rows have the order's. */
    accountId?: string | null;
  };

const COLUMNS = `id::text AS id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, tracking_id AS "trackingId",
  stage, field, address, result, list, version, reason, actor, note`;

export async function recordScreening(db: Queryable, e: NewScreeningLogEntry): Promise<void> {
  await db.query(
    `INSERT INTO screening_log (tracking_id, stage, field, address, result, list, version, reason, actor, note, account_id, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())`,
    [e.trackingId ?? null, e.stage, e.field ?? null, e.address ?? null, e.result, e.list ?? null, e.version ?? null, e.reason ?? null, e.actor, e.note ?? null, e.accountId ?? null],
  );
}

/** Many decisions in one statement (a deposit batch's clear results). */
export async function recordScreenings(db: Queryable, entries: NewScreeningLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const col = <K extends keyof NewScreeningLogEntry>(k: K) => entries.map((e) => e[k] ?? null);
  await db.query(
    `INSERT INTO screening_log (tracking_id, stage, field, address, result, list, version, reason, actor, note, account_id, at)
     SELECT *, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])`,
    [col('trackingId'), col('stage'), col('field'), col('address'), col('result'), col('list'), col('version'), col('reason'), col('actor'), col('note'), col('accountId')],
  );
}

/** A finding as the log keeps it: what was found, where (docs/spec.md §12). */
export interface Finding {
  result: 'blocked' | 'error';
  field: string | null;
  address: string | null;
  list: string | null;
  version: string | null;
  /** For a blocked finding, the listing: the list's entry (`listed (SDN entry N)`) or the provider's category. */
  reason: string | null;
}

/**
 * SQL that is true when a hold row `h` was for the same finding as $2..$6 (field, address, list, result,
 * reason): the same listing — the same address named by the same list or provider for the same entry or
 * category. Not the list's version: a list that gains or loses other addresses, a re-read, a restart or the
 * next daily file still holds the same listing, and a release of it stands (docs/spec.md §12, "A resolution
 * covers what it resolved"). An unanswered check (`error`) is the same finding whatever the error said.
 */
const SAME_FINDING = `h.field IS NOT DISTINCT FROM $2 AND h.address IS NOT DISTINCT FROM $3 AND h.list IS NOT DISTINCT FROM $4
       AND h.result = $5 AND (h.result = 'error' OR h.reason IS NOT DISTINCT FROM $6)`;

/**
 * Whether an operator's release covers this finding: a hold of this order for the same finding (SAME_FINDING),
 * followed by a release. A release covers what it resolved, nothing else: a new address, another list or entry,
 * a provider's new category holds again (issue 49: one release once exempted the order forever). A release of late
 * funds held at the order's deposit account (`hold_id` set: fundReleaseCovers weighs it) is not the order's: it
 * answered those funds, not the order's own hold, so it lets no payout or refund of the order past a finding.
 */
export async function releaseCovers(db: Queryable, trackingId: string, f: Finding): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM screening_log h
     WHERE h.tracking_id = $1 AND h.stage <> 'resolution' AND ${SAME_FINDING}
       AND EXISTS (SELECT 1 FROM screening_log r WHERE r.tracking_id = h.tracking_id AND r.stage = 'resolution' AND r.result = 'release' AND r.id > h.id AND r.hold_id IS NULL)
     LIMIT 1`,
    [trackingId, f.field, f.address, f.list, f.result, f.reason],
  );
  return rows.length > 0;
}

/** Whether an operator released `subject`'s fund hold of `kind` for this same finding (SAME_FINDING). */
export async function fundReleaseCovers(db: Queryable, kind: 'late' | 'fee', subject: string, f: Finding): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM screening_holds h WHERE h.kind = $7 AND h.subject = $1 AND h.status IN ('released', 'refund_due', 'refunded') AND ${SAME_FINDING} LIMIT 1`,
    [subject, f.field, f.address, f.list, f.result, f.reason, kind],
  );
  return rows.length > 0;
}

/** Whether this order has a decision of `stage` in the log (a deposit the hint confirmed has none until the worker screens it). */
export async function screenedAt(db: Queryable, trackingId: string, stage: 'deposit' | 'payout'): Promise<boolean> {
  return (await screenedOf(db, [trackingId], stage)).has(trackingId);
}

/** Which of these orders have a decision in the log at `stage` (one read for the order loop's batch). */
export async function screenedOf(db: Queryable, trackingIds: string[], stage: 'deposit' | 'payout'): Promise<Set<string>> {
  if (trackingIds.length === 0) return new Set();
  const { rows } = await db.query<{ tracking_id: string }>(`SELECT DISTINCT tracking_id FROM screening_log WHERE tracking_id = ANY($1::text[]) AND stage = $2`, [trackingIds, stage]);
  return new Set(rows.map((r) => r.tracking_id));
}

/** The most rows one read returns: an export's 10,000 (src/admin/screening-log-export.ts) and one more that says it was cut. */
export const LOG_READ_MAX = 10_001;

const ROW_COLUMNS = `l.id::text AS id, to_char(l.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, l.tracking_id AS "trackingId",
  coalesce(l.account_id, o.account_id) AS "accountId", l.stage, l.field, l.address, l.result, l.list, l.version, l.reason, l.actor, l.approved_by AS "approvedBy", l.note`;

/**
 * The log, newest first by id (ids only grow, so a page read with `beforeId` never shifts as rows are added),
 * filtered (src/store/screening-log-filter.ts), at most `limit` rows (100 by default). A partner's rows are two
 * reads of the log, each from its index and each stopped at the limit: a quote refusal keeps the account itself,
 * an order's row has the order's. The rows read are then given their order's account (one lookup per row shown).
 */
export async function listScreeningLog(db: Queryable, opts: ScreeningLogFilter & { limit?: number } = {}): Promise<ScreeningLogRow[]> {
  const params: unknown[] = [];
  const where = logFilterSql(opts, params);
  const limit = `$${params.push(Math.min(Math.max(opts.limit ?? 100, 1), LOG_READ_MAX))}`;
  // The column, not the text alias of it: as text, 10 sorts before 9 (issue 49).
  const newest = `ORDER BY l.id DESC LIMIT ${limit}`;
  let rows = `SELECT l.* FROM screening_log l WHERE ${where} ${newest}`;
  if (opts.accountId !== undefined) {
    const account = `$${params.push(opts.accountId)}`;
    rows = `(SELECT l.* FROM screening_log l WHERE l.account_id = ${account} AND ${where} ${newest})
      UNION ALL
      (SELECT l.* FROM screening_log l WHERE l.tracking_id IN (SELECT tracking_id FROM orders WHERE account_id = ${account}) AND ${where} ${newest})`;
  }
  const { rows: out } = await db.query<ScreeningLogRow>(`SELECT ${ROW_COLUMNS} FROM (${rows}) l LEFT JOIN orders o ON o.tracking_id = l.tracking_id ${newest}`, params);
  return out;
}

/**
 * What orders screened as, for their disclosure receipts: each order's latest decision of each stage (deposit,
 * payout, resolution), oldest first, by tracking id; one read for a receipt pass. Empty when screening was off for it.
 */
export async function screeningResultsFor(db: Queryable, trackingIds: readonly string[]): Promise<Map<string, ScreeningLogEntry[]>> {
  const out = new Map<string, ScreeningLogEntry[]>(trackingIds.map((t) => [t, []]));
  if (trackingIds.length === 0) return out;
  const { rows } = await db.query<ScreeningLogEntry>(
    `SELECT * FROM (
       SELECT DISTINCT ON (tracking_id, stage) ${COLUMNS} FROM screening_log WHERE tracking_id = ANY($1::text[]) ORDER BY tracking_id, stage, id DESC
     ) latest ORDER BY id::bigint`,
    [trackingIds],
  );
  for (const r of rows) if (r.trackingId) out.get(r.trackingId)?.push(r);
  return out;
}
