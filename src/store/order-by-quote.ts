import type { Queryable } from './db.ts';

/**
 * The trackingId of the order a quote backs, for the account that owns both; null when none. The quote key
 * is the quote's MAC tag, unique per order (orders_quote_key_unique), and only the account it was issued
 * to can open the quote, so the account filter is a second lock, not the only one.
 */
export async function trackingIdByQuoteKey(db: Queryable, accountId: string, quoteKey: string): Promise<string | null> {
  const { rows } = await db.query<{ tracking_id: string }>('SELECT tracking_id FROM orders WHERE quote_key = $1 AND account_id = $2', [quoteKey, accountId]);
  return rows[0]?.tracking_id ?? null;
}
