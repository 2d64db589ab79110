import type { Queryable } from '../db.ts';
import type { OperatorRole } from './operators-store.ts';

export async function insertOperatorSession(db: Queryable, idHash: Buffer, operatorId: string): Promise<void> {
  await db.query(`INSERT INTO operator_sessions (id_hash, operator_id, created_at, last_seen_at) VALUES ($1, $2, now(), now())`, [idHash, operatorId]);
}

/**
 * The live session's operator, its idle clock restarted unless the request is the page's own refresh (`active`
 * false: a console left open is idle however often it polls): one statement, so two requests racing past the
 * idle limit cannot revive it. Null when there is none, it ended, it has been idle `idleS` or more, it is older
 * than `maxS`, or its operator is disabled.
 */
export async function useOperatorSession(db: Queryable, idHash: Buffer, idleS: number, maxS: number, active = true): Promise<{ operatorId: string; name: string; role: OperatorRole } | null> {
  const { rows } = await db.query<{ operatorId: string; name: string; role: OperatorRole }>(
    `UPDATE operator_sessions s SET last_seen_at = CASE WHEN $4 THEN now() ELSE s.last_seen_at END
       FROM operators p
      WHERE s.id_hash = $1 AND p.id = s.operator_id AND s.ended_at IS NULL AND p.disabled_at IS NULL
        AND s.last_seen_at > now() - make_interval(secs => $2) AND s.created_at > now() - make_interval(secs => $3)
      RETURNING p.id AS "operatorId", p.name, p.role`,
    [idHash, idleS, maxS, active],
  );
  return rows[0] ?? null;
}

export async function endOperatorSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query(`UPDATE operator_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL`, [idHash]);
}
