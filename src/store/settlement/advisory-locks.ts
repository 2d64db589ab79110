import type { Queryable } from '../db.ts';

/** Advisory lock naming the partner-payout job among all workers. */
export const PARTNER_PAYOUT_LOCK = 87870002;
/** Advisory lock class of late sweeps, one lock per deposit account (with the hash of its address). */
export const LATE_SWEEP_LOCK = 87870003;

/** Takes a transaction-scoped advisory lock if free: the key alone, or a class and the hash of a name. */
export async function tryTransactionLock(tx: Queryable, key: number, name?: string): Promise<boolean> {
  const lock =
    name === undefined
      ? await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key])
      : await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS ok', [key, name]);
  return lock.rows[0]?.ok === true;
}
