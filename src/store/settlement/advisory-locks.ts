import type { Queryable } from '../db.ts';

/** Advisory lock naming the partner-payout job among all workers. */
export const PARTNER_PAYOUT_LOCK = 87870002;
/** Advisory lock naming the class release among all workers. */
export const CLASS_RELEASE_LOCK = 87870004;
/** Advisory lock class of late sweeps, one lock per deposit account (with the hash of its address). */
export const LATE_SWEEP_LOCK = 87870003;

/**
 * Takes a transaction-scoped advisory lock if free: a class (the key) and the hash of the store's schema and a
 * name. Advisory locks belong to the whole database, so the schema is part of every lock: two deployments side
 * by side in one database (each its own schema) never wait for each other's jobs.
 */
export async function tryTransactionLock(tx: Queryable, key: number, name = ''): Promise<boolean> {
  const lock = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema() || E'\\n' || $2::text)) AS ok`, [key, name]);
  return lock.rows[0]?.ok === true;
}
