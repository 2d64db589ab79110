import type { Queryable } from '../db.ts';

/**
 * Frees every order lease in the store. Only for a start on PGlite: its directory lock makes the store
 * this process's alone, so any lease in it was taken by a life of the process that has ended (a crash),
 * and waiting it out (30 s) only delays those orders. Never on PostgreSQL, where other workers hold leases.
 */
export async function releaseLeasesOfPastLives(db: Queryable): Promise<number> {
  const { rows } = await db.query(`UPDATE orders SET locked_by = NULL, locked_until = NULL WHERE locked_until > now() RETURNING id`);
  return rows.length;
}
