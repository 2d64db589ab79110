import type { Queryable } from '../db.ts';

export type OperatorRole = 'viewer' | 'resolver' | 'approver';

/** A named operator (docs/spec.md §12 "Named operators"); never a token or a session. */
export interface OperatorRecord {
  operatorId: string;
  name: string;
  role: OperatorRole;
  email: string | null;
  /** Whether a sign-in has bound the OpenID subject (the subject itself is not shown). */
  signedInWithOidc: boolean;
  createdAt: string;
  disabledAt: string | null;
}

const AT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const OPERATOR_COLUMNS = `p.id AS "operatorId", p.name, p.role, p.email, (p.oidc_subject IS NOT NULL) AS "signedInWithOidc",
  ${AT('p.created_at')} AS "createdAt", ${AT('p.disabled_at')} AS "disabledAt"`;

export async function insertOperator(db: Queryable, o: { id: string; name: string; role: OperatorRole; email: string | null; subject: string | null }): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRecord>(
    `INSERT INTO operators AS p (id, name, role, email, oidc_subject, created_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT DO NOTHING RETURNING ${OPERATOR_COLUMNS}`,
    [o.id, o.name, o.role, o.email, o.subject],
  );
  return rows[0] ?? null;
}

export async function listOperators(db: Queryable): Promise<OperatorRecord[]> {
  const { rows } = await db.query<OperatorRecord>(`SELECT ${OPERATOR_COLUMNS} FROM operators p ORDER BY p.created_at, p.id`);
  return rows;
}

export async function getOperator(db: Queryable, id: string): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRecord>(`SELECT ${OPERATOR_COLUMNS} FROM operators p WHERE p.id = $1`, [id]);
  return rows[0] ?? null;
}

/** The operator an OpenID sign-in names: by its bound subject, or the first sign-in of a registered verified email (which binds it). */
export async function operatorForSignIn(db: Queryable, subject: string, verifiedEmail: string | null): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRecord>(
    `WITH bound AS (SELECT id FROM operators WHERE oidc_subject = $1),
          bind AS (UPDATE operators SET oidc_subject = $1
                    WHERE NOT EXISTS (SELECT 1 FROM bound) AND $2::text IS NOT NULL AND email = $2 AND oidc_subject IS NULL RETURNING id)
     SELECT ${OPERATOR_COLUMNS} FROM operators p WHERE p.id IN (SELECT id FROM bound UNION ALL SELECT id FROM bind)`,
    [subject, verifiedEmail],
  );
  return rows[0] ?? null;
}

/**
 * A role change or (dis|re)enabling, in one statement. Disabling revokes the operator's tokens and ends their
 * sessions for good: an operator disabled because a token was stolen and enabled again signs in afresh, and the
 * stolen token stays dead.
 */
export async function updateOperator(db: Queryable, id: string, patch: { role?: OperatorRole; disabled?: boolean }): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRecord>(
    `WITH t AS (UPDATE operator_tokens SET revoked_at = now() WHERE $3::boolean AND operator_id = $1 AND revoked_at IS NULL RETURNING id),
          s AS (UPDATE operator_sessions SET ended_at = now() WHERE $3::boolean AND operator_id = $1 AND ended_at IS NULL RETURNING operator_id)
     UPDATE operators p SET role = coalesce($2, p.role),
            disabled_at = CASE WHEN $3::boolean IS NULL THEN p.disabled_at WHEN $3 THEN coalesce(p.disabled_at, now()) ELSE NULL END
      WHERE p.id = $1 RETURNING ${OPERATOR_COLUMNS}`,
    [id, patch.role ?? null, patch.disabled ?? null],
  );
  return rows[0] ?? null;
}
