import type { Queryable } from '../db.ts';
import { isoSql, KEY_COLUMN, LATEST_HOLD_OF, openHoldSql, refParam, type HoldRef } from './hold-ref.ts';

/** A claim on a hold: who (the screening log's actor form), the named operator's id if any, since when. */
export interface HoldClaim {
  by: string;
  operatorId: string | null;
  at: string;
}

/** What a claim is decided on: the hold's status now (an order's, or a fund hold's) and the claim on it, if open. */
export interface ClaimState {
  status: string;
  claim: HoldClaim | null;
}

const CLAIM_COLUMNS = `c.claimed_by AS by, c.operator_id AS "operatorId", ${isoSql('c.claimed_at')} AS at`;

const STATE_SQL = {
  order: `SELECT o.status, ${CLAIM_COLUMNS} FROM orders o LEFT JOIN LATERAL ${LATEST_HOLD_OF('o')} hh ON true
           LEFT JOIN hold_claims c ON c.held_history_id = hh.id WHERE o.tracking_id = $1`,
  fund: `SELECT h.status, ${CLAIM_COLUMNS} FROM screening_holds h LEFT JOIN hold_claims c ON c.screening_hold_id = h.id WHERE h.id = $1::bigint`,
};

/** The hold's status and its claim; null when there is no such order or fund hold. */
export async function claimState(db: Queryable, ref: HoldRef): Promise<ClaimState | null> {
  const { rows } = await db.query<{ status: string; by: string | null; operatorId: string | null; at: string | null }>(STATE_SQL[ref.kind], [refParam(ref)]);
  const r = rows[0];
  if (!r) return null;
  return { status: r.status, claim: r.by === null ? null : { by: r.by, operatorId: r.operatorId, at: r.at! } };
}

const claimSql = (kind: HoldRef['kind']) => {
  const key = KEY_COLUMN[kind];
  // $4 is whose claim the caller saw: null for a hold nobody claimed (a row there means someone beat it to it),
  // a name for a take-over (the row is replaced only while that name still holds it).
  return `WITH hold AS (${openHoldSql(kind)}),
     c AS (INSERT INTO hold_claims (held_history_id, screening_hold_id, claimed_by, operator_id, claimed_at)
           SELECT held_history_id, screening_hold_id, $2, $3, now() FROM hold
           ON CONFLICT (${key}) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, operator_id = EXCLUDED.operator_id, claimed_at = EXCLUDED.claimed_at
             WHERE hold_claims.claimed_by = $4::text
           RETURNING held_history_id, screening_hold_id, claimed_by, operator_id, claimed_at),
     n AS (INSERT INTO hold_notes (held_history_id, screening_hold_id, kind, actor, operator_id, text, at)
           SELECT held_history_id, screening_hold_id, CASE WHEN $4::text IS NULL THEN 'claim' ELSE 'take_over' END, $2, $3, $4::text, now() FROM c)
     SELECT ${CLAIM_COLUMNS} FROM c`;
};
const CLAIM_SQL = { order: claimSql('order'), fund: claimSql('fund') };

/**
 * Claims an open hold for `by`, with its note, in one statement, compare-and-set on the claim the caller saw:
 * `from` null claims a hold nobody holds; `from` a name takes it over from that name (a `take_over` note naming
 * it). Null when the hold is no longer open or the claim is no longer what the caller saw.
 */
export async function claimHold(db: Queryable, ref: HoldRef, by: string, operatorId: string | null, from: string | null): Promise<HoldClaim | null> {
  const { rows } = await db.query<HoldClaim>(CLAIM_SQL[ref.kind], [refParam(ref), by, operatorId, from]);
  return rows[0] ?? null;
}

const unclaimSql = (kind: HoldRef['kind']) => {
  const key = KEY_COLUMN[kind];
  return `WITH hold AS (${openHoldSql(kind)}),
     c AS (DELETE FROM hold_claims c USING hold WHERE c.${key} = hold.${key} AND c.claimed_by = $2 RETURNING c.held_history_id, c.screening_hold_id, c.claimed_by),
     n AS (INSERT INTO hold_notes (held_history_id, screening_hold_id, kind, actor, operator_id, text, at)
           SELECT held_history_id, screening_hold_id, 'unclaim', $3, $4, claimed_by, now() FROM c)
     SELECT claimed_by FROM c`;
};
const UNCLAIM_SQL = { order: unclaimSql('order'), fund: unclaimSql('fund') };

/**
 * Ends `from`'s claim on an open hold, `by` asking (an `unclaim` note naming whose claim ended), in one
 * statement, compare-and-set: false when the hold is resolved or `from` no longer holds it.
 */
export async function unclaimHold(db: Queryable, ref: HoldRef, from: string, by: string, operatorId: string | null): Promise<boolean> {
  const { rows } = await db.query(UNCLAIM_SQL[ref.kind], [refParam(ref), from, by, operatorId]);
  return rows.length > 0;
}
