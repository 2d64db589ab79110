import type { Queryable } from './db.ts';

/**
 * Which of `addresses` is some order's deposit owner or deposit account (each an index lookup: migration
 * 015 and the deposit_account unique key).
 */
export async function depositAddressesAmong(db: Queryable, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const { rows } = await db.query<{ a: string }>(
    `SELECT a FROM unnest($1::text[]) AS a
     WHERE EXISTS (SELECT 1 FROM orders WHERE deposit_owner = a) OR EXISTS (SELECT 1 FROM orders WHERE deposit_account = a)`,
    [addresses],
  );
  return new Set(rows.map((r) => r.a));
}
