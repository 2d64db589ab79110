import type { Queryable } from '../db.ts';

/** The store's time, the clock port's (clocked-db.ts), as chain_txs.updated_at is written with: read here so both stay on one clock. */
export async function storeNow(db: Queryable): Promise<Date> {
  return (await db.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at;
}
