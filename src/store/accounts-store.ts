import type { Queryable } from './db.ts';

export type AccountStatus = 'active' | 'suspended';

export interface AccountRecord {
  id: string;
  name: string;
  feeCapBps: number;
  status: AccountStatus;
  rateLimits: Partial<Record<'quote' | 'order' | 'status' | 'tokens' | 'account', number>> | null;
  feeRecipients: string[];
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  secretHash: Uint8Array;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

interface AccountRow {
  id: string;
  name: string;
  fee_cap_bps: number;
  status: AccountStatus;
  rate_limits: AccountRecord['rateLimits'];
  fee_recipients: string[] | null;
}

const ACCOUNT_SELECT = `SELECT a.id, a.name, a.fee_cap_bps, a.status, a.rate_limits,
  (SELECT coalesce(array_agg(f.address ORDER BY f.address), '{}') FROM fee_recipients f WHERE f.account_id = a.id) AS fee_recipients
  FROM accounts a`;

function toAccount(r: AccountRow): AccountRecord {
  return { id: r.id, name: r.name, feeCapBps: r.fee_cap_bps, status: r.status, rateLimits: r.rate_limits, feeRecipients: r.fee_recipients ?? [] };
}

export async function insertAccount(db: Queryable, a: { id: string; name: string; feeCapBps: number }): Promise<void> {
  await db.query('INSERT INTO accounts (id, name, fee_cap_bps, created_at, updated_at) VALUES ($1, $2, $3, now(), now())', [a.id, a.name, a.feeCapBps]);
}

export async function getAccount(db: Queryable, id: string): Promise<AccountRecord | null> {
  const { rows } = await db.query<AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = $1`, [id]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function getAccountByName(db: Queryable, name: string): Promise<AccountRecord | null> {
  const { rows } = await db.query<AccountRow>(`${ACCOUNT_SELECT} WHERE a.name = $1`, [name]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function listAccounts(db: Queryable): Promise<AccountRecord[]> {
  const { rows } = await db.query<AccountRow>(`${ACCOUNT_SELECT} ORDER BY a.created_at`);
  return rows.map(toAccount);
}

export async function updateAccount(
  db: Queryable,
  id: string,
  patch: { feeCapBps?: number; status?: AccountStatus; rateLimits?: AccountRecord['rateLimits'] },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE accounts SET fee_cap_bps = coalesce($2, fee_cap_bps), status = coalesce($3, status),
       rate_limits = CASE WHEN $4::boolean THEN $5::jsonb ELSE rate_limits END, updated_at = now() WHERE id = $1`,
    [id, patch.feeCapBps ?? null, patch.status ?? null, patch.rateLimits !== undefined, patch.rateLimits == null ? null : JSON.stringify(patch.rateLimits)],
  );
  return rowCount > 0;
}

export async function insertApiKey(db: Queryable, k: { keyId: string; accountId: string; secretHash: Uint8Array; expiresAt: Date | null }): Promise<void> {
  await db.query('INSERT INTO api_keys (id, account_id, secret_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, now())', [k.keyId, k.accountId, Buffer.from(k.secretHash), k.expiresAt]);
}

export async function findApiKey(db: Queryable, keyId: string): Promise<ApiKeyRecord | null> {
  const { rows } = await db.query<{ id: string; account_id: string; secret_hash: Uint8Array; expires_at: Date | null; revoked_at: Date | null }>(
    'SELECT id, account_id, secret_hash, expires_at, revoked_at FROM api_keys WHERE id = $1',
    [keyId],
  );
  const r = rows[0];
  return r ? { keyId: r.id, accountId: r.account_id, secretHash: new Uint8Array(r.secret_hash), expiresAt: r.expires_at, revokedAt: r.revoked_at } : null;
}

export async function listApiKeys(db: Queryable, accountId: string): Promise<{ keyId: string; createdAt: Date; expiresAt: Date | null; revokedAt: Date | null }[]> {
  const { rows } = await db.query<{ id: string; created_at: Date; expires_at: Date | null; revoked_at: Date | null }>(
    'SELECT id, created_at, expires_at, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at',
    [accountId],
  );
  return rows.map((r) => ({ keyId: r.id, createdAt: r.created_at, expiresAt: r.expires_at, revokedAt: r.revoked_at }));
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [keyId]);
  return rowCount > 0;
}

/**
 * Holds the account's row until the transaction ends: what is decided from its keys (how many are active)
 * then stays true until the decision is written, whatever other requests do meanwhile. False: no account.
 */
export async function lockAccount(tx: Queryable, accountId: string): Promise<boolean> {
  const { rowCount } = await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  return rowCount > 0;
}

/** Keys of the account that authenticate now (neither revoked nor expired), but `exceptKeyId`. */
export async function countActiveKeys(db: Queryable, accountId: string, exceptKeyId: string | null = null): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AND id IS DISTINCT FROM $2',
    [accountId, exceptKeyId],
  );
  return rows[0]!.n;
}

/**
 * The account's other keys (all but `exceptKeyId`) that still authenticate `forSeconds` from now, and how many
 * of those never expire: what a revocation must leave (docs/spec.md §3, an account always keeps a key).
 */
export async function lastingKeys(db: Queryable, accountId: string, exceptKeyId: string, forSeconds: number): Promise<{ lasting: number; nonExpiring: number }> {
  const { rows } = await db.query<{ lasting: number; non_expiring: number }>(
    `SELECT count(*) FILTER (WHERE expires_at IS NULL OR expires_at > now() + make_interval(secs => $3))::int AS lasting,
            count(*) FILTER (WHERE expires_at IS NULL)::int AS non_expiring
       FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND id <> $2`,
    [accountId, exceptKeyId, forSeconds],
  );
  return { lasting: rows[0]!.lasting, nonExpiring: rows[0]!.non_expiring };
}

/** Deletes the account's revoked or expired keys but the `keep` most recently created; how many went. */
export async function pruneInactiveKeys(db: Queryable, accountId: string, keep: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM api_keys WHERE id IN (
       SELECT id FROM api_keys WHERE account_id = $1 AND (revoked_at IS NOT NULL OR expires_at <= now())
       ORDER BY created_at DESC, id OFFSET $2)`,
    [accountId, keep],
  );
  return rowCount;
}

export async function addFeeRecipient(db: Queryable, accountId: string, address: string): Promise<void> {
  await db.query('INSERT INTO fee_recipients (account_id, address, created_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING', [accountId, address]);
}

export async function removeFeeRecipient(db: Queryable, accountId: string, address: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM fee_recipients WHERE account_id = $1 AND address = $2', [accountId, address]);
  return rowCount > 0;
}
