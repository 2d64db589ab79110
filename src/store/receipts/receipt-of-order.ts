import type { Queryable } from '../db.ts';

/**
 * An order's owner, status and signed receipt (null until signed), by tracking id, of one account only: another
 * account's order is not read, so it answers as an unknown id does, in the same time (issue 50).
 */
export async function receiptOfOrder(
  db: Queryable,
  trackingId: string,
  accountId: string,
): Promise<{ accountId: string; status: string; receipt: { document: string; signature: string; keyId: string } | null } | null> {
  const { rows } = await db.query<{ account_id: string; status: string; document: string | null; signature: string | null; key_id: string | null }>(
    `SELECT o.account_id, o.status, r.document, r.signature, r.key_id
       FROM orders o LEFT JOIN order_receipts r ON r.order_id = o.id WHERE o.tracking_id = $1 AND o.account_id = $2`,
    [trackingId, accountId],
  );
  const row = rows[0];
  if (!row) return null;
  return { accountId: row.account_id, status: row.status, receipt: row.document !== null ? { document: row.document, signature: row.signature!, keyId: row.key_id! } : null };
}
