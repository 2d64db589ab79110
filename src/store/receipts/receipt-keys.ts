import type { Queryable } from '../db.ts';

export interface PublishedReceiptKey {
  keyId: string;
  algorithm: 'ed25519';
  publishedAt: string;
}

/** A worker's receipt key, published at its start (idempotent: a key is published once and stays). */
export async function publishReceiptKey(db: Queryable, keyId: string): Promise<void> {
  await db.query(`INSERT INTO receipt_keys (key_id, first_published_at) VALUES ($1, now()) ON CONFLICT (key_id) DO NOTHING`, [keyId]);
}

/** Every key that ever signed a receipt here, newest first. */
export async function listReceiptKeys(db: Queryable): Promise<PublishedReceiptKey[]> {
  const { rows } = await db.query<PublishedReceiptKey>(
    `SELECT key_id AS "keyId", algorithm, to_char(first_published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "publishedAt"
       FROM receipt_keys ORDER BY first_published_at DESC, key_id`,
  );
  return rows;
}
