import type { Queryable } from '../db.ts';

/** The store's clock (the one chain_txs.updated_at is written with). */
export async function storeNow(db: Queryable): Promise<Date> {
  return (await db.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at;
}
