import type { Queryable } from '../db.ts';
import type { OperatorRole } from './operators-store.ts';

/** A personal token as its owner sees it: never its secret or hash. */
export interface OperatorTokenView {
  tokenId: string;
  label: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

const AT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const VIEW = `t.id AS "tokenId", t.label, ${AT('t.created_at')} AS "createdAt", ${AT('t.expires_at')} AS "expiresAt", ${AT('t.revoked_at')} AS "revokedAt", ${AT('t.last_used_at')} AS "lastUsedAt"`;

export async function insertOperatorToken(db: Queryable, t: { id: string; operatorId: string; secretHash: Buffer; label: string | null; expiresInS: number | null }): Promise<OperatorTokenView> {
  const { rows } = await db.query<OperatorTokenView>(
    `INSERT INTO operator_tokens AS t (id, operator_id, secret_hash, label, created_at, expires_at)
     VALUES ($1, $2, $3, $4, now(), CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $5) END) RETURNING ${VIEW}`,
    [t.id, t.operatorId, t.secretHash, t.label, t.expiresInS],
  );
  return rows[0]!;
}

export async function listOperatorTokens(db: Queryable, operatorId: string): Promise<OperatorTokenView[]> {
  const { rows } = await db.query<OperatorTokenView>(`SELECT ${VIEW} FROM operator_tokens t WHERE t.operator_id = $1 ORDER BY t.created_at, t.id`, [operatorId]);
  return rows;
}

/** Revokes one of the operator's tokens (revoking a revoked one answers it unchanged); null when it is not theirs. */
export async function revokeOperatorToken(db: Queryable, operatorId: string, tokenId: string): Promise<OperatorTokenView | null> {
  const { rows } = await db.query<OperatorTokenView>(
    `UPDATE operator_tokens t SET revoked_at = coalesce(t.revoked_at, now()) WHERE t.id = $1 AND t.operator_id = $2 RETURNING ${VIEW}`,
    [tokenId, operatorId],
  );
  return rows[0] ?? null;
}

/** What authenticating a presented token needs: its hash and whether it and its operator are live now. */
export interface TokenCredential {
  secretHash: Buffer;
  live: boolean;
  operatorId: string;
  name: string;
  role: OperatorRole;
}

export async function tokenCredential(db: Queryable, tokenId: string): Promise<TokenCredential | null> {
  const { rows } = await db.query<TokenCredential>(
    `SELECT t.secret_hash AS "secretHash", (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now()) AND p.disabled_at IS NULL) AS live,
            p.id AS "operatorId", p.name, p.role
       FROM operator_tokens t JOIN operators p ON p.id = t.operator_id WHERE t.id = $1`,
    [tokenId],
  );
  const r = rows[0];
  return r ? { ...r, secretHash: Buffer.from(r.secretHash) } : null;
}

/** When the token was last used (shown to its owner; a stale token is one to revoke). */
export async function touchOperatorToken(db: Queryable, tokenId: string): Promise<void> {
  await db.query(`UPDATE operator_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`, [tokenId]);
}
