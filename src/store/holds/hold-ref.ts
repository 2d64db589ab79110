import { statusesSql } from '../settlement/final-statuses.ts';

/**
 * Which hold an operator's claim or comment is about (docs/spec.md §12 "Claims, comments, history"): a held
 * order, by its tracking id, or a fund hold (late funds, a fee recipient), by its id.
 */
export type HoldRef = { kind: 'order'; trackingId: string } | { kind: 'fund'; holdId: string };

/**
 * A hold's key in `hold_claims` and `hold_notes` (migration 032): for an order, the history row of its latest
 * move to `held` — an order released and held again is a new hold, with a claim and comments of its own — and
 * for a fund hold its id (one row of `screening_holds`, whatever happens to it).
 */
export const KEY_COLUMN = { order: 'held_history_id', fund: 'screening_hold_id' } as const;

const HELD = statusesSql('operatorHold');

/**
 * The history row of order `o`'s latest move to `held` (`id`, `at`), as a LATERAL subquery; with `upTo`, the
 * latest at or before that time (the hold a resolution at that time ended).
 */
export const LATEST_HOLD_OF = (o: string, upTo?: string) =>
  `(SELECT id, at FROM order_history WHERE order_id = ${o}.id AND status IN ${HELD}${upTo ? ` AND at <= ${upTo}` : ''} ORDER BY id DESC LIMIT 1)`;

/**
 * SQL of the hold $1 names while it is open, as one row (`held_history_id`, `screening_hold_id`), none once it
 * is resolved: what a claim or comment writes against, so a resolution that lands first leaves nothing to write.
 */
export function openHoldSql(kind: HoldRef['kind']): string {
  return kind === 'order'
    ? `SELECT hh.id AS held_history_id, NULL::bigint AS screening_hold_id FROM orders o CROSS JOIN LATERAL ${LATEST_HOLD_OF('o')} hh
        WHERE o.tracking_id = $1 AND o.status IN ${HELD}`
    : `SELECT NULL::bigint AS held_history_id, h.id AS screening_hold_id FROM screening_holds h WHERE h.id = $1::bigint AND h.status = 'held'`;
}

/** The hold's key as the statement's $1: a tracking id, or a fund hold's id. */
export const refParam = (ref: HoldRef): string => (ref.kind === 'order' ? ref.trackingId : ref.holdId);

/** A time as the admin API answers it: UTC, milliseconds (the clock port's precision), `Z`. */
export const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A hold's notes as JSON for the answers (`claim`, `claims`, `comments`), for the hold `ofHold(t)` says a row of
 * table alias `t` belongs to: the claim on it (null when nobody holds it), every claim, take-over and unclaim,
 * and every comment, oldest first.
 */
export function notesJsonSql(ofHold: (t: string) => string): string {
  const note = `json_build_object('id', n.id::text, 'by', n.actor, 'operatorId', n.operator_id, 'at', ${isoSql('n.at')}`;
  return `(SELECT json_build_object('by', c.claimed_by, 'operatorId', c.operator_id, 'at', ${isoSql('c.claimed_at')}) FROM hold_claims c WHERE ${ofHold('c')}) AS claim,
          coalesce((SELECT json_agg(${note}, 'kind', n.kind, 'of', n.text) ORDER BY n.id) FROM hold_notes n WHERE ${ofHold('n')} AND n.kind <> 'comment'), '[]'::json) AS claims,
          coalesce((SELECT json_agg(${note}, 'text', n.text) ORDER BY n.id) FROM hold_notes n WHERE ${ofHold('n')} AND n.kind = 'comment'), '[]'::json) AS comments`;
}

/** A hold's notes as the answers carry them. */
export interface HoldNotes {
  /** Who is on it now (advisory: it stops nobody resolving), or null. */
  claim: { by: string; operatorId: string | null; at: string } | null;
  /** Every claim, take-over (`of`: whose claim it took) and unclaim (`of`: whose claim ended), oldest first. */
  claims: { id: string; kind: 'claim' | 'take_over' | 'unclaim'; by: string; operatorId: string | null; at: string; of: string | null }[];
  /** Every comment, oldest first. */
  comments: HoldComment[];
}

export interface HoldComment {
  id: string;
  by: string;
  operatorId: string | null;
  text: string;
  at: string;
}
