import type { Queryable } from './db.ts';

/** An event claimed for one delivery attempt, with where to send it. */
export interface DueWebhookEvent {
  id: string;
  orderId: string;
  status: string;
  at: Date;
  attempts: number;
  url: string | null;
  secret: string | null;
}

/** Gives up after this many attempts (backoff 2^n s, at most an hour apart: about 5 h in all). */
export const MAX_WEBHOOK_ATTEMPTS = 15;

export async function setWebhook(db: Queryable, accountId: string, url: string | null, secret: string | null): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE accounts SET webhook_url = $2, webhook_secret = $3, updated_at = now() WHERE id = $1', [accountId, url, secret]);
  return rowCount > 0;
}

/**
 * Claims due events for one attempt each (one statement, SKIP LOCKED, a lease so a crashed dispatcher's
 * events come back): oldest first, with their account's current webhook.
 */
export async function claimWebhookEvents(db: Queryable, limit: number, leaseS = 30): Promise<DueWebhookEvent[]> {
  const { rows } = await db.query<{ id: string | number; order_id: string | number; status: string; at: Date; attempts: number; webhook_url: string | null; webhook_secret: string | null }>(
    `UPDATE webhook_events e SET attempts = e.attempts + 1, locked_until = now() + make_interval(secs => $2)
     FROM accounts a
     WHERE a.id = e.account_id AND e.id IN (
       SELECT id FROM webhook_events
       WHERE delivered_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
       ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING e.id, e.order_id, e.status, e.at, e.attempts, a.webhook_url, a.webhook_secret`,
    [limit, leaseS],
  );
  return rows
    .map((r) => ({ id: String(r.id), orderId: String(r.order_id), status: r.status, at: r.at, attempts: r.attempts, url: r.webhook_url, secret: r.webhook_secret }))
    .sort((x, y) => Number(BigInt(x.id) - BigInt(y.id)));
}

export async function markWebhookDelivered(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE webhook_events SET delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1 AND delivered_at IS NULL', [id]);
}

/** A failed attempt: the next one after 2^attempts s (at most an hour), or none once attempts run out. */
export async function markWebhookFailed(db: Queryable, id: string, error: string, giveUp = false): Promise<void> {
  await db.query(
    `UPDATE webhook_events SET locked_until = NULL, last_error = left($2, 500),
       next_attempt_at = now() + least(interval '1 hour', make_interval(secs => power(2, attempts))),
       given_up_at = CASE WHEN $3 OR attempts >= $4 THEN now() END
     WHERE id = $1 AND delivered_at IS NULL`,
    [id, error, giveUp, MAX_WEBHOOK_ATTEMPTS],
  );
}
