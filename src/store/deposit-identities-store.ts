import type { Address } from '@solana/kit';
import type { Queryable } from './db.ts';

/** A deposit identity as stored: derived by a process holding the treasury seed, claimed by the API. */
export interface StoredDepositIdentity {
  trackingId: string;
  depositOwner: Address;
  depositAccount: Address;
  extraBumpTries: number;
}

/**
 * Adds identities an asset's orders may claim (one statement), numbered on from the asset's highest `seq`
 * (depositIdentitySpans reads what is left from that numbering). Two refills of one asset at once could number
 * alike: the span then reads low and the pool is filled past its target, never short.
 *
 * The identities travel as one JSON document, so the statement's text is the same whatever their number: a
 * VALUES list of four parameters per identity made a new text (and a new plan of up to 2,048 parameters) for
 * every batch size, each serialized parameter by parameter (docs/performance.md, run 11).
 */
export async function insertDepositIdentities(db: Queryable, mint: string, tokenProgram: string, ids: readonly StoredDepositIdentity[]): Promise<void> {
  if (ids.length === 0) return;
  const doc = ids.map((id) => ({ tracking_id: id.trackingId, owner: id.depositOwner, account: id.depositAccount, tries: id.extraBumpTries }));
  await db.query(
    `INSERT INTO deposit_identities (tracking_id, mint, token_program, deposit_owner, deposit_account, extra_bump_tries, seq, created_at)
     SELECT v.tracking_id, $1, $2, v.owner, v.account, v.tries, top.seq + v.i, now()
       FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (tracking_id text, owner text, account text, tries integer))
            WITH ORDINALITY AS v(tracking_id, owner, account, tries, i)
      CROSS JOIN (SELECT coalesce(max(seq), 0) AS seq FROM deposit_identities WHERE mint = $1 AND token_program = $2) AS top
     ON CONFLICT (tracking_id) DO NOTHING`,
    [mint, tokenProgram, JSON.stringify(doc)],
  );
}

/**
 * Takes up to `n` identities of an asset out of the pool, lowest `seq` (oldest) first, in one statement. Rows another
 * process is taking are skipped, not waited for, so concurrent APIs never get the same identity. Each is remembered
 * (claimed_identities) until its order is stored: a backup taken meanwhile still names its deposit account.
 */
export async function claimDepositIdentities(db: Queryable, mint: string, tokenProgram: string, n: number): Promise<StoredDepositIdentity[]> {
  const { rows } = await db.query<{ tracking_id: string; deposit_owner: string; deposit_account: string; extra_bump_tries: number }>(
    `WITH taken AS (
       DELETE FROM deposit_identities WHERE tracking_id IN (
         SELECT tracking_id FROM deposit_identities WHERE mint = $1 AND token_program = $2
          ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING tracking_id, deposit_owner, deposit_account, extra_bump_tries),
     kept AS (INSERT INTO claimed_identities (deposit_account, tracking_id, claimed_at) SELECT deposit_account, tracking_id, now() FROM taken)
     SELECT * FROM taken`,
    [mint, tokenProgram, n],
  );
  return rows.map((r) => ({
    trackingId: r.tracking_id,
    depositOwner: r.deposit_owner as Address,
    depositAccount: r.deposit_account as Address,
    extraBumpTries: Number(r.extra_bump_tries),
  }));
}

/** How many identities wait in the pool, per `mint:tokenProgram`. */
export async function countDepositIdentities(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ mint: string; token_program: string; n: string | number }>(
    'SELECT mint, token_program, count(*) AS n FROM deposit_identities GROUP BY mint, token_program',
  );
  return new Map(rows.map((r) => [`${r.mint}:${r.token_program}`, Number(r.n)]));
}

/**
 * How many identities each asset has left, from the first and last of its numbering (two index probes per
 * asset, where countDepositIdentities scans the pool). Claims take the lowest first, so the span is exact
 * unless a claim rolled back after a concurrent one took rows above it, or an insert skipped a duplicate:
 * then it reads high by those rows, and only until the claims pass them. Reading high means refilling a
 * little later, never claiming an identity that is not there.
 */
export async function depositIdentitySpans(db: Queryable, assets: readonly { mint: string; tokenProgram: string }[]): Promise<Map<string, number>> {
  if (assets.length === 0) return new Map();
  // The assets as a VALUES list, not arrays: its rows are known to the generic plan too, so PGlite keeps that plan
  // instead of planning the statement on every read (docs/decisions.md, "PGlite plans again as its tables grow"; the text is one per asset count).
  const values = assets.map((_, i) => `($${2 * i + 1}::text, $${2 * i + 2}::text)`).join(', ');
  const { rows } = await db.query<{ mint: string; token_program: string; n: string | number | null }>(
    `SELECT v.mint, v.token_program,
            (SELECT max(seq) FROM deposit_identities d WHERE d.mint = v.mint AND d.token_program = v.token_program)
          - (SELECT min(seq) FROM deposit_identities d WHERE d.mint = v.mint AND d.token_program = v.token_program) + 1 AS n
       FROM (VALUES ${values}) AS v(mint, token_program)`,
    assets.flatMap((a) => [a.mint, a.tokenProgram]),
  );
  return new Map(rows.map((r) => [`${r.mint}:${r.token_program}`, r.n === null ? 0 : Number(r.n)]));
}

/**
 * Empties the pool (the mint refills it with new identities): after the store went back in time, identities it
 * still holds may have been handed to orders it forgot, and must never be handed out a second time. They are kept
 * as claimed (a deposit to one may still land), and returned with the other claimed ones no order has taken.
 */
export async function purgeDepositIdentities(db: Queryable): Promise<{ depositAccount: string }[]> {
  const { rows } = await db.query<{ deposit_account: string }>(
    `WITH pool AS (DELETE FROM deposit_identities RETURNING deposit_account, tracking_id),
     kept AS (INSERT INTO claimed_identities (deposit_account, tracking_id, claimed_at) SELECT deposit_account, tracking_id, now() FROM pool ON CONFLICT DO NOTHING)
     SELECT deposit_account FROM pool
     UNION SELECT c.deposit_account FROM claimed_identities c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.tracking_id = c.tracking_id)`,
  );
  return rows.map((r) => ({ depositAccount: r.deposit_account }));
}

/**
 * The `perAsset` identities each asset's pool hands out next, and those an API claimed without an order stored yet,
 * by their deposit accounts (the chain check's look for forgotten orders' deposits).
 */
export async function depositIdentityAccounts(db: Queryable, perAsset: number): Promise<string[]> {
  const { rows } = await db.query<{ deposit_account: string }>(
    `SELECT deposit_account FROM (SELECT deposit_account, row_number() OVER (PARTITION BY mint, token_program ORDER BY seq) AS n FROM deposit_identities) p WHERE n <= $1
     UNION SELECT c.deposit_account FROM claimed_identities c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.tracking_id = c.tracking_id)`,
    [perAsset],
  );
  return rows.map((r) => r.deposit_account);
}

/**
 * Forgets claimed identities whose orders are stored (they are the store's now), and any claimed a month ago
 * (an API that claimed a batch and stopped). Returns how many.
 */
export async function forgetClaimedIdentities(db: Queryable): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM claimed_identities c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.tracking_id = c.tracking_id)
        OR c.claimed_at < now() - interval '30 days' RETURNING 1`,
  );
  return rows.length;
}

