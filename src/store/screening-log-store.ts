import type { Queryable } from './db.ts';

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

export type NewScreeningLogEntry = Omit<ScreeningLogEntry, 'id' | 'at' | 'trackingId' | 'field' | 'address' | 'list' | 'version' | 'reason' | 'note'> &
  Partial<Pick<ScreeningLogEntry, 'trackingId' | 'field' | 'address' | 'list' | 'version' | 'reason' | 'note'>>;

const COLUMNS = `id::text AS id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, tracking_id AS "trackingId",
  stage, field, address, result, list, version, reason, actor, note`;

export async function recordScreening(db: Queryable, e: NewScreeningLogEntry): Promise<void> {
  await db.query(
    `INSERT INTO screening_log (tracking_id, stage, field, address, result, list, version, reason, actor, note, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())`,
    [e.trackingId ?? null, e.stage, e.field ?? null, e.address ?? null, e.result, e.list ?? null, e.version ?? null, e.reason ?? null, e.actor, e.note ?? null],
  );
}

/** Many decisions in one statement (a deposit batch's clear results). */
export async function recordScreenings(db: Queryable, entries: NewScreeningLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const col = <K extends keyof NewScreeningLogEntry>(k: K) => entries.map((e) => e[k] ?? null);
  await db.query(
    `INSERT INTO screening_log (tracking_id, stage, field, address, result, list, version, reason, actor, note, at)
     SELECT *, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
    [col('trackingId'), col('stage'), col('field'), col('address'), col('result'), col('list'), col('version'), col('reason'), col('actor'), col('note')],
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
 * a provider's new category holds again (issue 49: one release once exempted the order forever).
 */
export async function releaseCovers(db: Queryable, trackingId: string, f: Finding): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM screening_log h
     WHERE h.tracking_id = $1 AND h.stage <> 'resolution' AND ${SAME_FINDING}
       AND EXISTS (SELECT 1 FROM screening_log r WHERE r.tracking_id = h.tracking_id AND r.stage = 'resolution' AND r.result = 'release' AND r.id > h.id)
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
  const { rows } = await db.query(`SELECT 1 FROM screening_log WHERE tracking_id = $1 AND stage = $2 LIMIT 1`, [trackingId, stage]);
  return rows.length > 0;
}

/** The log, newest first, from before `beforeId` (paging) and optionally for one order and/or one address. */
export async function listScreeningLog(db: Queryable, opts: { limit?: number; beforeId?: string; trackingId?: string; address?: string } = {}): Promise<ScreeningLogEntry[]> {
  const { rows } = await db.query<ScreeningLogEntry>(
    `SELECT ${COLUMNS} FROM screening_log
     WHERE ($1::bigint IS NULL OR screening_log.id < $1::bigint) AND ($2::text IS NULL OR tracking_id = $2) AND ($4::text IS NULL OR address = $4)
     -- The column, not COLUMNS' text alias of it: as text, 10 sorts before 9 (issue 49).
     ORDER BY screening_log.id DESC LIMIT $3`,
    [opts.beforeId ?? null, opts.trackingId ?? null, Math.min(Math.max(opts.limit ?? 100, 1), 1000), opts.address ?? null],
  );
  return rows;
}

/**
 * What an order screened as, for its disclosure receipt: the latest decision of each stage (deposit,
 * payout, resolution), oldest first. Empty when screening was off for it.
 */
export async function screeningResultFor(db: Queryable, trackingId: string): Promise<ScreeningLogEntry[]> {
  const { rows } = await db.query<ScreeningLogEntry>(
    `SELECT * FROM (
       SELECT DISTINCT ON (stage) ${COLUMNS} FROM screening_log WHERE tracking_id = $1 ORDER BY stage, id DESC
     ) latest ORDER BY id::bigint`,
    [trackingId],
  );
  return rows;
}
