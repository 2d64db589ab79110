import type { Queryable } from './db.ts';

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'in_progress' }
  | { kind: 'conflict' }
  | { kind: 'done'; status: number; body: unknown };

/**
 * SQL that takes the transaction-scoped advisory lock of one (account, key) without waiting. Every
 * statement that creates a key's record holds it until it commits, so a concurrent duplicate in another
 * process learns that the key is being written (ORDER_IN_PROGRESS, seed rule 4) instead of waiting on the
 * uncommitted row and replaying it. Lock granted means no such statement is running.
 */
export function tryKeyLock(accountSql: string, keySql: string): string {
  // The schema too: advisory locks belong to the whole database, and another deployment's schema has its own accounts.
  return `pg_try_advisory_xact_lock(hashtextextended(current_schema() || E'\\n' || ${accountSql} || E'\\n' || ${keySql}, 0))`;
}

/** An in-progress claim older than this belongs to a request that died; a retry may take it over. */
const STALE_CLAIM = '30 seconds';

/**
 * Claims (account, key) for one request. One statement: insert, or take over a stale claim with the same
 * terms; whoever gets a row back owns the key. Everyone else learns what the owner is doing.
 */
export async function claimIdempotencyKey(db: Queryable, accountId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
  const claimed = await db.query<{ free: boolean; claimed: boolean }>(
    `WITH l AS (SELECT ${tryKeyLock('$1::text', '$2::text')} AS free),
     c AS (
       INSERT INTO idempotency_keys (account_id, key, request_hash, state, locked_at, created_at) SELECT $1, $2, $3, 'in_progress', now(), now() FROM l WHERE l.free
       ON CONFLICT (account_id, key) DO UPDATE SET locked_at = now()
         WHERE idempotency_keys.state = 'in_progress' AND idempotency_keys.request_hash = EXCLUDED.request_hash
           AND idempotency_keys.locked_at < now() - interval '${STALE_CLAIM}'
       RETURNING 1)
     SELECT (SELECT free FROM l) AS free, EXISTS (SELECT 1 FROM c) AS claimed`,
    [accountId, key, requestHash],
  );
  const { free, claimed: won } = claimed.rows[0]!;
  if (won) return { kind: 'claimed' };
  // A plain read never waits: with the lock busy, the key's row is being written and not visible yet
  // (in progress), or it is committed and answers as usual (a concurrent replay stays a replay).
  const { rows } = await db.query<{ request_hash: string; state: string; response_status: number | null; response_body: unknown }>(
    'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE account_id = $1 AND key = $2',
    [accountId, key],
  );
  const r = rows[0];
  if (!r) return free ? claimIdempotencyKey(db, accountId, key, requestHash) : { kind: 'in_progress' }; // free: released in between, try again
  if (r.request_hash !== requestHash) return { kind: 'conflict' };
  if (r.state !== 'done') return { kind: 'in_progress' };
  return { kind: 'done', status: r.response_status ?? 200, body: r.response_body };
}

/** Gives a key back after a request failed before creating anything, so the client may retry it. */
export async function releaseIdempotencyKey(db: Queryable, accountId: string, key: string): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND state = 'in_progress'`, [accountId, key]);
}

/** Records live at least 24 h (docs/spec.md §4); older ones go. */
export async function purgeIdempotencyKeys(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '25 hours'`);
  return rowCount;
}
