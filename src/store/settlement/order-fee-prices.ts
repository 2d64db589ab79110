import type { Queryable } from '../db.ts';

/**
 * The compute-unit price each order's networkFee was priced at (its quote's fee grid rung, `network_fee_price`),
 * by order id; an order without one (from before the column) is absent.
 */
export async function orderFeePrices(q: Queryable, orderIds: readonly string[]): Promise<Map<string, bigint>> {
  const ids = [...new Set(orderIds)];
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ id: string | number; price: string }>(
    'SELECT id, network_fee_price::text AS price FROM orders WHERE id = ANY($1::bigint[]) AND network_fee_price IS NOT NULL',
    [ids],
  );
  return new Map(rows.map((r) => [String(r.id), BigInt(r.price)]));
}
