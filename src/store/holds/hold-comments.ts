import type { Queryable } from '../db.ts';
import { isoSql, openHoldSql, refParam, type HoldComment, type HoldRef } from './hold-ref.ts';

const commentSql = (kind: HoldRef['kind']) =>
  `WITH hold AS (${openHoldSql(kind)})
   INSERT INTO hold_notes (held_history_id, screening_hold_id, kind, actor, operator_id, text, at)
   SELECT held_history_id, screening_hold_id, 'comment', $2, $3, $4, now() FROM hold
   RETURNING id::text AS id, actor AS by, operator_id AS "operatorId", text, ${isoSql('at')} AS at`;
const COMMENT_SQL = { order: commentSql('order'), fund: commentSql('fund') };

/**
 * A comment on an open hold, with who and when: null when the hold is not open (resolved meanwhile, or never
 * there). The text comes checked (src/admin/hold-notes-service.ts): trimmed, 1–500 characters, no control character.
 */
export async function commentOnHold(db: Queryable, ref: HoldRef, by: string, operatorId: string | null, text: string): Promise<HoldComment | null> {
  const { rows } = await db.query<HoldComment>(COMMENT_SQL[ref.kind], [refParam(ref), by, operatorId, text]);
  return rows[0] ?? null;
}
