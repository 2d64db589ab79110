import type { Queryable } from './db.ts';

/** An event claimed for one delivery attempt, with where to send it. */
export interface DueWebhookEvent {
  id: string;
  orderId: string;
  accountId: string;
  /** `order.status_changed`, `order.released` (a held private payout sent: migration 017), `order.held` or `order.frozen` (migration 022). */
  type: string;
  /** The transition's place in its order's history, from 1 (`order.history[sequence - 1]`); per order, so it reveals no global volume. */
  sequence: number;
  status: string;
  at: Date;
  attempts: number;
  /** The claim's lease (whole milliseconds, so it survives the trip through a JS Date): marks apply only while it is still this claim's. */
  lease: Date;
  url: string | null;
  secret: string | null;
  /** The replaced secrets that still sign beside the current one (rotation), newest first. */
  previousSecrets: string[];
}

/** How long a replaced webhook secret keeps signing (Standard Webhooks rotation). */
const WEBHOOK_ROTATION_WINDOW = '24 hours';
/**
 * Replaced secrets signing at once, at most: each adds a signature to every event. A rotation beyond them is
 * refused until the oldest ends (its promised 24 h are kept), never done by cutting one short.
 */
export const MAX_PREVIOUS_SECRETS = 9;
/** The replaced secrets of `accounts` (alias `a`) still inside their window, as {secret, until} rows. */
const LIVE = (a: string) => `(SELECT e FROM jsonb_array_elements(${a}.webhook_previous_secrets) e WHERE (e ->> 'until')::timestamptz > now())`;
/** Their secrets, newest first, as a text[]. */
const LIVE_SECRETS = (a: string) => `ARRAY(SELECT l.e ->> 'secret' FROM ${LIVE(a)} l ORDER BY (l.e ->> 'until')::timestamptz DESC)`;
/** Until when the one replaced last signs (null: none signs now). */
const LAST_UNTIL = (a: string) => `(SELECT max((l.e ->> 'until')::timestamptz) FROM ${LIVE(a)} l)`;

/** Gives up after this many attempts (backoff 2^n s, at most an hour apart: about 4 h in all). */
export const MAX_WEBHOOK_ATTEMPTS = 15;

/** Delivered and given-up events are kept this long (then purged). */
const KEEP_EVENTS = '7 days';

/** Until when the replaced secret signs beside the new one (null: there was none to replace). */
export interface SecretRotation {
  previousSecretUntil: Date | null;
}

/**
 * Refused: MAX_PREVIOUS_SECRETS replaced secrets sign already; `retryAt`, when the oldest of them ends (null:
 * it ended between the two statements, so a retry may go now).
 */
export interface RotationRefused {
  refused: { retryAt: Date | null };
}

/**
 * The SET of a new secret (parameter `p`): the current one joins the replaced ones for the rotation window
 * (those whose window ended are dropped); clearing (null) drops them all.
 */
const rotate = (p: string) => `webhook_previous_secrets = CASE WHEN ${p}::text IS NULL THEN '[]'::jsonb
    ELSE coalesce((SELECT jsonb_agg(l.e) FROM ${LIVE('accounts')} l), '[]'::jsonb)
      || CASE WHEN webhook_secret IS NOT NULL THEN jsonb_build_array(jsonb_build_object('secret', webhook_secret, 'until', now() + interval '${WEBHOOK_ROTATION_WINDOW}')) ELSE '[]'::jsonb END END,
  webhook_secret = ${p}, updated_at = now()`;
/** The rotation may proceed: clearing, no current secret, or fewer than MAX_PREVIOUS_SECRETS replaced ones signing. */
const ROOM = (p: string) => `(${p}::text IS NULL OR webhook_secret IS NULL OR (SELECT count(*) FROM ${LIVE('accounts')} l) < ${MAX_PREVIOUS_SECRETS})`;
/** When the oldest replaced secret of the account ends (the answer to a refused rotation). */
async function oldestEnd(db: Queryable, accountId: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date }>(`SELECT min((l.e ->> 'until')::timestamptz) AS at FROM accounts a, LATERAL ${LIVE('a')} l WHERE a.id = $1`, [accountId]);
  return rows[0]?.at ?? null;
}
const UNTIL_NOW = `(SELECT max((e ->> 'until')::timestamptz) FROM jsonb_array_elements(webhook_previous_secrets) e WHERE (e ->> 'until')::timestamptz > now())`;

/**
 * The webhook's URL and a new secret, the current one signing beside it for the rotation window; clearing
 * the webhook (nulls) drops both. Null when there is no such account.
 */
export async function setWebhook(db: Queryable, accountId: string, url: string | null, secret: string | null): Promise<SecretRotation | RotationRefused | null> {
  const { rows } = await db.query<{ until: Date | null }>(`UPDATE accounts SET webhook_url = $2, ${rotate('$3')} WHERE id = $1 AND ${ROOM('$3')} RETURNING ${UNTIL_NOW} AS until`, [accountId, url, secret]);
  if (rows[0]) return { previousSecretUntil: rows[0].until };
  const { rows: exists } = await db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  return exists.length ? { refused: { retryAt: await oldestEnd(db, accountId) } } : null;
}

/** A new secret for the webhook the account has, rotated as setWebhook does; null when it has none. */
export async function rotateWebhookSecret(db: Queryable, accountId: string, secret: string): Promise<(SecretRotation & { url: string }) | RotationRefused | null> {
  const { rows } = await db.query<{ url: string; until: Date | null }>(
    `UPDATE accounts SET ${rotate('$2')} WHERE id = $1 AND webhook_url IS NOT NULL AND ${ROOM('$2')} RETURNING webhook_url AS url, ${UNTIL_NOW} AS until`,
    [accountId, secret],
  );
  if (rows[0]) return { url: rows[0].url, previousSecretUntil: rows[0].until };
  const { rows: exists } = await db.query('SELECT 1 FROM accounts WHERE id = $1 AND webhook_url IS NOT NULL', [accountId]);
  return exists.length ? { refused: { retryAt: await oldestEnd(db, accountId) } } : null;
}

/** What an account may see of its webhook: the URL and until when a replaced secret still signs; never a secret. */
export async function webhookSettings(db: Queryable, accountId: string): Promise<{ url: string; previousSecretUntil: Date | null } | null> {
  const { rows } = await db.query<{ url: string | null; until: Date | null }>(
    `SELECT webhook_url AS url, ${LAST_UNTIL('a')} AS until FROM accounts a WHERE id = $1`,
    [accountId],
  );
  return rows[0]?.url ? { url: rows[0].url, previousSecretUntil: rows[0].until } : null;
}

/** An account's webhook and its signing secrets now (the test-send endpoint). */
export async function getWebhook(db: Queryable, accountId: string): Promise<{ url: string; secret: string; previousSecrets: string[] } | null> {
  const { rows } = await db.query<{ webhook_url: string | null; webhook_secret: string | null; previous: string[] }>(
    `SELECT webhook_url, webhook_secret, ${LIVE_SECRETS('a')} AS previous FROM accounts a WHERE id = $1`,
    [accountId],
  );
  const r = rows[0];
  return r?.webhook_url && r.webhook_secret ? { url: r.webhook_url, secret: r.webhook_secret, previousSecrets: r.previous } : null;
}

/**
 * Claims due events for one attempt each: one statement, SKIP LOCKED, oldest first, with their account's
 * current webhook, under a lease that outlasts the attempt (a crashed dispatcher's events come back after it).
 * Only the oldest pending event of an order is ever claimed, so one order's events go out one at a time
 * and in order: a failing event holds back the later events of its order until it is delivered or given up.
 * Fair per account (issue 43): at most `perAccount` events of one account per claim, none of the accounts in
 * `busy` (those the caller has as many deliveries in flight for as it allows), so one partner's backlog or
 * slow receiver never fills a claim that another partner's events are waiting behind.
 */
export async function claimWebhookEvents(db: Queryable, limit: number, leaseS: number, fair: { perAccount: number; busy: string[] } = { perAccount: limit, busy: [] }): Promise<DueWebhookEvent[]> {
  const { rows } = await db.query<{
    id: string | number;
    order_id: string | number;
    account_id: string;
    type: string;
    sequence: string | number;
    status: string;
    at: Date;
    attempts: number;
    locked_until: Date;
    webhook_url: string | null;
    webhook_secret: string | null;
    webhook_previous: string[];
  }>(
    `WITH ready AS MATERIALIZED (
       SELECT id, account_id, next_attempt_at FROM webhook_events w
       WHERE delivered_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         AND account_id <> ALL($4::text[])
         AND NOT EXISTS (
           SELECT 1 FROM webhook_events p
           WHERE p.order_id = w.order_id AND p.id < w.id AND p.delivered_at IS NULL AND p.given_up_at IS NULL)),
     -- Each account's oldest few, then the oldest of those (a window cannot sit beside FOR UPDATE: ranked first, locked after).
     ranked AS (
       SELECT id, next_attempt_at, row_number() OVER (PARTITION BY account_id ORDER BY next_attempt_at, id) AS n FROM ready),
     due AS MATERIALIZED (
       SELECT id FROM webhook_events WHERE id IN (SELECT id FROM ranked WHERE n <= $3 ORDER BY next_attempt_at, id LIMIT $1)
       FOR UPDATE SKIP LOCKED)
     UPDATE webhook_events e SET attempts = e.attempts + 1, locked_until = date_trunc('milliseconds', now() + make_interval(secs => $2))
     FROM due, accounts a
     WHERE e.id = due.id AND a.id = e.account_id
     RETURNING e.id, e.order_id, e.account_id, e.type, e.status, e.at, e.attempts, e.locked_until, a.webhook_url, a.webhook_secret,
       ${LIVE_SECRETS('a')} AS webhook_previous,
       (SELECT count(*) FROM order_history h WHERE h.order_id = e.order_id AND h.id <= e.history_id) AS sequence`,
    [limit, leaseS, fair.perAccount, fair.busy],
  );
  return rows.map((r) => ({
    id: String(r.id),
    orderId: String(r.order_id),
    accountId: r.account_id,
    type: r.type,
    sequence: Number(r.sequence),
    status: r.status,
    at: r.at,
    attempts: r.attempts,
    lease: r.locked_until,
    url: r.webhook_url,
    secret: r.webhook_secret,
    previousSecrets: r.webhook_previous,
  }));
}

export async function markWebhookDelivered(db: Queryable, e: Pick<DueWebhookEvent, 'id' | 'lease'>): Promise<void> {
  await db.query('UPDATE webhook_events SET delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1 AND locked_until = $2 AND delivered_at IS NULL', [e.id, e.lease]);
}

/**
 * A failed attempt: the next one 2^attempts s later (at most an hour), or none once attempts run out or
 * `giveUp`. Null when the lease was lost meanwhile.
 */
export async function markWebhookFailed(
  db: Queryable,
  e: Pick<DueWebhookEvent, 'id' | 'lease'>,
  error: string,
  giveUp = false,
): Promise<{ givenUp: boolean; nextAttemptAt: Date } | null> {
  const { rows } = await db.query<{ given_up: boolean; next_attempt_at: Date }>(
    `UPDATE webhook_events SET locked_until = NULL, last_error = left($3, 500),
       next_attempt_at = now() + least(interval '1 hour', make_interval(secs => power(2, attempts))),
       given_up_at = CASE WHEN $4 OR attempts >= $5 THEN now() END
     WHERE id = $1 AND locked_until = $2 AND delivered_at IS NULL
     RETURNING given_up_at IS NOT NULL AS given_up, next_attempt_at`,
    [e.id, e.lease, error, giveUp, MAX_WEBHOOK_ATTEMPTS],
  );
  return rows[0] ? { givenUp: rows[0].given_up, nextAttemptAt: rows[0].next_attempt_at } : null;
}

export async function purgeWebhookEvents(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM webhook_events WHERE coalesce(delivered_at, given_up_at) < now() - interval '${KEEP_EVENTS}'`);
  return rowCount;
}
