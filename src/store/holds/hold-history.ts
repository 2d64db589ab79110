import type { Queryable } from '../db.ts';
import { isoSql, LATEST_HOLD_OF, notesJsonSql, type HoldNotes } from './hold-ref.ts';

/**
 * One resolved hold in the history (docs/spec.md §12 "Claims, comments, history"): an operator's resolution of a
 * held order or a fund hold (a row of the screening log), or a fee recipient's hold that ended by itself when
 * the address screened clear again (`action: cleared`, by `hush`). Newest first; `historyId` is its cursor.
 */
export interface HistoryItem extends HoldNotes {
  /** `r<screening log id>` for a resolution, `c<hold id>` for a fee hold cleared by screening. */
  historyId: string;
  kind: 'order' | 'late' | 'fee';
  trackingId: string | null;
  holdId: string | null;
  accountId: string | null;
  heldAt: string | null;
  resolvedAt: string;
  /** Who answered (for a four-eyes answer, who proposed it). */
  resolvedBy: string;
  /** For a four-eyes answer (a freeze, a release of a sanctions-list finding), who approved it; else null. */
  approvedBy: string | null;
  action: 'release' | 'refund' | 'freeze' | 'cleared';
  note: string | null;
  /** The order's or the fund hold's status now (a released order has gone on since). */
  status: string;
  decision: { stage: string; result: string; field: string | null; address: string | null; list: string | null; version: string | null; reason: string | null } | null;
  /** A held order's: the amounts, the sender and recipient, its deposit's transaction. */
  sourceAssetId: string | null;
  destinationAssetId: string | null;
  amountIn: string | null;
  amountOut: string | null;
  senderAddress: string | null;
  recipientAddress: string | null;
  depositSignature: string | null;
  /** A fund hold's: the asset, the amount, and its subject (late funds: `<sweep signature>:<order id>`). */
  assetId: string | null;
  amount: string | null;
  subject: string | null;
}

/** A cursor: which source (1 a resolution in the log, 0 a cleared fee hold) and its row's id. */
export type HistoryCursor = { source: 0 | 1; id: string };

const DECISION = (p: string) => `json_build_object('stage', ${p}.stage, 'result', ${p}.result, 'field', ${p}.field, 'address', ${p}.address, 'list', ${p}.list, 'version', ${p}.version, 'reason', ${p}.reason)`;

/**
 * Resolved holds, newest first (by when they were resolved, then source, then id: a total order, so a page
 * boundary never drops or repeats an item), at most `limit`, before `cursor` (the last item of the previous
 * page), in one statement. The cursor's own row gives the time it stands for: no time is parsed from a request.
 */
const HISTORY_SQL = `
WITH cur AS (
  SELECT s.at, 1 AS source, s.id FROM screening_log s WHERE $2::int = 1 AND s.id = $3::bigint AND s.stage = 'resolution'
  UNION ALL
  SELECT h.resolved_at, 0, h.id FROM screening_holds h WHERE $2::int = 0 AND h.id = $3::bigint AND h.status = 'cleared'
), page AS (
  SELECT * FROM (
    (SELECT 1 AS source, s.id, s.at, s.tracking_id, s.hold_id, s.result AS action, s.actor, s.approved_by, s.note FROM screening_log s
      WHERE s.stage = 'resolution' AND ($1::boolean OR (s.at, 1, s.id) < (SELECT at, source, id FROM cur))
      ORDER BY s.at DESC, s.id DESC LIMIT $4)
    UNION ALL
    (SELECT 0, h.id, h.resolved_at, h.tracking_id, h.id, 'cleared', coalesce(h.resolved_by, 'hush'), NULL, NULL FROM screening_holds h
      WHERE h.status = 'cleared' AND ($1::boolean OR (h.resolved_at, 0, h.id) < (SELECT at, source, id FROM cur))
      ORDER BY h.resolved_at DESC, h.id DESC LIMIT $4)
  ) both_sources ORDER BY at DESC, source DESC, id DESC LIMIT $4
)
SELECT CASE WHEN p.source = 1 THEN 'r' ELSE 'c' END || p.id AS "historyId",
       CASE WHEN p.hold_id IS NULL THEN 'order' ELSE h.kind END AS kind,
       coalesce(o.tracking_id, h.tracking_id) AS "trackingId", h.id::text AS "holdId",
       coalesce(o.account_id, lo.account_id, CASE WHEN h.kind = 'fee' THEN nullif(split_part(h.subject, ':', 3), '') END) AS "accountId",
       ${isoSql('coalesce(hh.at, h.created_at)')} AS "heldAt", ${isoSql('p.at')} AS "resolvedAt", p.actor AS "resolvedBy", p.approved_by AS "approvedBy", p.action,
       -- A fund hold's resolution is logged as "<kind> hold <id>: <note>": the operator's note is the rest.
       CASE WHEN h.id IS NOT NULL AND starts_with(p.note, h.kind || ' hold ' || h.id || ': ') THEN substr(p.note, length(h.kind || ' hold ' || h.id || ': ') + 1) ELSE p.note END AS note,
       coalesce(h.status, o.status) AS status,
       CASE WHEN h.id IS NOT NULL THEN ${DECISION('h')}
            ELSE (SELECT ${DECISION('d')} FROM screening_log d WHERE d.tracking_id = o.tracking_id AND d.result IN ('blocked', 'error') AND d.id < p.id ORDER BY d.id DESC LIMIT 1) END AS decision,
       o.source_asset_id AS "sourceAssetId", o.destination_asset_id AS "destinationAssetId", o.amount_in::text AS "amountIn", o.amount_out::text AS "amountOut",
       o.sender AS "senderAddress", o.recipient AS "recipientAddress", o.deposit ->> 'signature' AS "depositSignature",
       h.asset_id AS "assetId", h.amount::text AS amount, h.subject,
       -- An item is an order's hold (hh) or a fund hold (h), never both: its notes are the one's or the other's.
       ${notesJsonSql((t) => `(${t}.held_history_id = hh.id OR ${t}.screening_hold_id = h.id)`)}
  FROM page p
  LEFT JOIN screening_holds h ON h.id = p.hold_id
  LEFT JOIN orders lo ON lo.id = h.order_id
  LEFT JOIN orders o ON p.hold_id IS NULL AND o.tracking_id = p.tracking_id
  -- The hold this resolution ended: the order's latest move to held before it.
  LEFT JOIN LATERAL ${LATEST_HOLD_OF('o', 'p.at')} hh ON true
 ORDER BY p.at DESC, p.source DESC, p.id DESC`;

/** A page of the history: `limit` items at most, newest first, after the cursor's item (none: from the newest). */
export async function listHoldHistory(db: Queryable, limit: number, cursor: HistoryCursor | null): Promise<HistoryItem[]> {
  const { rows } = await db.query<HistoryItem>(HISTORY_SQL, [cursor === null, cursor?.source ?? 0, cursor?.id ?? '0', limit]);
  return rows;
}
