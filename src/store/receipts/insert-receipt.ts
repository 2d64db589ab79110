import type { Queryable } from '../db.ts';

/** Stores one signed receipt and marks its order, in one statement; a second signing of the same order changes nothing. */
export async function insertReceipt(db: Queryable, r: { orderId: string; keyId: string; document: string; signature: string }): Promise<boolean> {
  const { rows } = await db.query(
    `WITH ins AS (INSERT INTO order_receipts (order_id, key_id, document, signature, signed_at) VALUES ($1, $2, $3, $4, now())
                  ON CONFLICT (order_id) DO NOTHING RETURNING order_id, signed_at)
     UPDATE orders o SET receipt_signed_at = ins.signed_at FROM ins WHERE o.id = ins.order_id RETURNING o.id`,
    [r.orderId, r.keyId, r.document, r.signature],
  );
  return rows.length > 0;
}
