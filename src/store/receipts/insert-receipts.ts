import type { Queryable } from '../db.ts';

export interface NewReceipt {
  orderId: string;
  keyId: string;
  document: string;
  signature: string;
}

/**
 * Stores a receipt pass's signed receipts and marks their orders, in one statement; a second signing of the same
 * order changes nothing. Returns the ids of the orders it marked.
 */
export async function insertReceipts(db: Queryable, receipts: readonly NewReceipt[]): Promise<Set<string>> {
  if (receipts.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `WITH ins AS (INSERT INTO order_receipts (order_id, key_id, document, signature, signed_at)
                  SELECT v.order_id, v.key_id, v.document, v.signature, now()
                    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS v(order_id, key_id, document, signature)
                  ON CONFLICT (order_id) DO NOTHING RETURNING order_id, signed_at)
     UPDATE orders o SET receipt_signed_at = ins.signed_at FROM ins WHERE o.id = ins.order_id RETURNING o.id`,
    [receipts.map((r) => r.orderId), receipts.map((r) => r.keyId), receipts.map((r) => r.document), receipts.map((r) => r.signature)],
  );
  return new Set(rows.map((r) => String(r.id)));
}
