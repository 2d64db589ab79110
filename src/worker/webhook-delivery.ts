import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * The old `Hush-*` headers go out beside the Standard Webhooks ones for one deprecation window, announced
 * on every delivery (RFC 9745 Deprecation: since when; RFC 8594 Sunset: until when).
 */
export const LEGACY_HEADERS_DEPRECATED_AT = new Date('2026-11-23T00:00:00.000Z');
export const LEGACY_HEADERS_SUNSET_AT = new Date('2027-05-23T00:00:00.000Z');

/** `Hush-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the deprecated scheme. */
export function webhookSignature(secret: string, timestampS: number, body: string): string {
  return `t=${timestampS},v1=${createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex')}`;
}

/**
 * The standardwebhooks package takes `whsec_<base64>`; secrets issued before it were base64url, the same
 * bytes in another alphabet.
 */
function standardSecret(secret: string): string {
  return `whsec_${secret.replace(/^whsec_/, '').replace(/-/g, '+').replace(/_/g, '/')}`;
}

/**
 * Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature over `id.timestamp.body`),
 * one `v1,<base64>` signature per secret (the new and the previous one during a rotation), plus the
 * deprecated Hush-* pair (signed with the current secret) and its Deprecation/Sunset announcement.
 */
export function webhookHeaders(eventId: string, body: string, secrets: readonly string[], now = new Date()): Record<string, string> {
  const timestampS = Math.floor(now.getTime() / 1000);
  const signatures = secrets.map((s) => new Webhook(standardSecret(s)).sign(eventId, now, body));
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': signatures.join(' '),
    'hush-event-id': eventId,
    'hush-signature': webhookSignature(secrets[0]!, timestampS, body),
    deprecation: `@${Math.floor(LEGACY_HEADERS_DEPRECATED_AT.getTime() / 1000)}`,
    sunset: LEGACY_HEADERS_SUNSET_AT.toUTCString(),
  };
}

/** One POST of one event; the receiver's status (a redirect is an answer, not a delivery). */
export async function postWebhook(url: string, eventId: string, body: string, secrets: readonly string[], signal: AbortSignal): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: webhookHeaders(eventId, body, secrets), body, redirect: 'manual', signal });
  await res.body?.cancel();
  return res.status;
}
