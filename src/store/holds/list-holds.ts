import type { Queryable } from '../db.ts';
import { statusesSql } from '../settlement/final-statuses.ts';
import { heldOrderWhere, holdFilterParams, type HoldFilter } from './hold-filter.ts';

/** A held order as the operator's queue shows it (docs/spec.md §12). */
export interface HeldOrder {
  trackingId: string;
  accountId: string;
  heldAt: string;
  sourceAssetId: string;
  destinationAssetId: string;
  amountIn: string;
  amountOut: string;
  senderAddress: string;
  recipientAddress: string;
  /** The decision that held it: its stage, what it found and where. */
  decision: { stage: string; result: string; field: string | null; address: string | null; list: string | null; version: string | null; reason: string | null } | null;
  /** Every screening entry of the order, oldest first (what the console shows beside the decision). */
  entries: { at: string; stage: string; result: string; field: string | null; address: string | null; list: string | null; version: string | null; reason: string | null; actor: string; note: string | null }[];
}

/** Where a page of the queue of held orders ends: the last one's `heldAt` and trackingId (the queue's order). */
export interface HeldAfter {
  heldAt: string;
  trackingId: string;
}

/**
 * Held orders, oldest first, with the screening decision that held each and all of its screening entries; those
 * matching `filter`, after `after` (the page before's last). Ordered by the time as shown (to the millisecond),
 * then trackingId, so the last one shown is a cursor that neither skips nor repeats a hold.
 */
export async function listHolds(db: Queryable, limit = 100, filter: HoldFilter = {}, after?: HeldAfter): Promise<HeldOrder[]> {
  const { rows } = await db.query<HeldOrder>(
    `SELECT o.tracking_id AS "trackingId", o.account_id AS "accountId",
            to_char(o.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "heldAt",
            o.source_asset_id AS "sourceAssetId", o.destination_asset_id AS "destinationAssetId",
            o.amount_in::text AS "amountIn", o.amount_out::text AS "amountOut",
            o.sender AS "senderAddress", o.recipient AS "recipientAddress",
            (SELECT json_build_object('stage', s.stage, 'result', s.result, 'field', s.field, 'address', s.address,
                                      'list', s.list, 'version', s.version, 'reason', s.reason)
               FROM screening_log s WHERE s.tracking_id = o.tracking_id AND s.result IN ('blocked', 'error')
              ORDER BY s.id DESC LIMIT 1) AS decision,
            coalesce((SELECT json_agg(json_build_object('at', to_char(s.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'stage', s.stage,
                                      'result', s.result, 'field', s.field, 'address', s.address, 'list', s.list, 'version', s.version,
                                      'reason', s.reason, 'actor', s.actor, 'note', s.note) ORDER BY s.id)
               FROM screening_log s WHERE s.tracking_id = o.tracking_id), '[]'::json) AS entries
       FROM orders o WHERE o.status IN ${statusesSql('operatorHold')} AND ${heldOrderWhere(2)}
        AND ($8::timestamptz IS NULL OR (date_trunc('milliseconds', o.updated_at), o.tracking_id) > ($8::timestamptz, $9::text))
      ORDER BY date_trunc('milliseconds', o.updated_at), o.tracking_id LIMIT $1`,
    // 1001: a page of the most the API lists, and one more that says another page exists.
    [Math.min(Math.max(limit, 1), 1001), ...holdFilterParams(filter), after?.heldAt ?? null, after?.trackingId ?? null],
  );
  return rows;
}

/** How many orders are held (that match `filter`): the queue's listing stops at its limit, this says how many it left out. */
export async function countHolds(db: Queryable, filter: HoldFilter = {}): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM orders o WHERE o.status IN ${statusesSql('operatorHold')} AND ${heldOrderWhere(1)}`, holdFilterParams(filter));
  return Number(rows[0]?.n ?? 0);
}
