import type { Queryable } from '../db.ts';
import { LATEST_HOLD_OF, notesJsonSql, type HoldNotes } from './hold-ref.ts';

/** What a held order's card shows beside the queue's listing: its notes, and the deposit's transaction. */
export type OrderHoldNotes = HoldNotes & { trackingId: string; depositSignature: string | null };

/**
 * The claim, claims and comments of each listed held order's current hold (one statement for the whole listing,
 * read beside it: src/store/holds/list-holds.ts is the queue's order and limit, this only adds to its items).
 */
export async function orderHoldNotes(db: Queryable, trackingIds: readonly string[]): Promise<Map<string, OrderHoldNotes>> {
  if (trackingIds.length === 0) return new Map();
  const { rows } = await db.query<OrderHoldNotes>(
    `SELECT o.tracking_id AS "trackingId", o.deposit ->> 'signature' AS "depositSignature", ${notesJsonSql((t) => `${t}.held_history_id = hh.id`)}
       FROM orders o CROSS JOIN LATERAL ${LATEST_HOLD_OF('o')} hh WHERE o.tracking_id = ANY($1::text[])`,
    [trackingIds],
  );
  return new Map(rows.map((r) => [r.trackingId, r]));
}

/** The same for listed fund holds, by hold id. */
export async function fundHoldNotes(db: Queryable, holdIds: readonly string[]): Promise<Map<string, HoldNotes & { holdId: string }>> {
  if (holdIds.length === 0) return new Map();
  const { rows } = await db.query<HoldNotes & { holdId: string }>(
    `SELECT h.id::text AS "holdId", ${notesJsonSql((t) => `${t}.screening_hold_id = h.id`)} FROM screening_holds h WHERE h.id = ANY($1::bigint[])`,
    [holdIds],
  );
  return new Map(rows.map((r) => [r.holdId, r]));
}
