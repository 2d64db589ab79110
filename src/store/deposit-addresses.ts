import type { Queryable } from './db.ts';

const IS_DEPOSIT_ADDRESS = 'EXISTS (SELECT 1 FROM orders WHERE deposit_owner = a) OR EXISTS (SELECT 1 FROM orders WHERE deposit_account = a)';

/** One order's addresses at most (sender, recipient, fee recipient): the lookup's common case, alone in its batch. */
const ONE_ORDER = 3;

/**
 * Which of `addresses` is some order's deposit owner or deposit account (each an index lookup: migration
 * 015 and the deposit_account unique key).
 *
 * One order's addresses go as three scalar parameters, not an array. PGlite keeps each statement prepared
 * (pglite-prepared.ts), and a prepared statement is planned again on every execution while its generic plan
 * looks dearer than a custom one: an array's length is known to a custom plan (three rows) but not to the
 * generic one (ten), so the array's statement never settles and pays its planning (~0.25 ms on PGlite) on
 * every order. Three parameters are three rows to both plans, and the generic plan is kept; as the orders
 * grow it is made again (pglite-replan.ts), so it never stays the scan it is on an empty store.
 */
export async function depositAddressesAmong(db: Queryable, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const { rows } =
    addresses.length <= ONE_ORDER
      ? await db.query<{ a: string }>(`SELECT a FROM (VALUES ($1::text), ($2::text), ($3::text)) AS v(a) WHERE a IS NOT NULL AND (${IS_DEPOSIT_ADDRESS})`, [
          addresses[0],
          addresses[1] ?? null,
          addresses[2] ?? null,
        ])
      : await db.query<{ a: string }>(`SELECT a FROM unnest($1::text[]) AS a WHERE ${IS_DEPOSIT_ADDRESS}`, [addresses]);
  return new Set(rows.map((r) => r.a));
}
