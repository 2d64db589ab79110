import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { EgressRefusedError, type WebhookEgress } from './webhook-egress.ts';

/**
 * The old `Hush-*` headers go out beside the Standard Webhooks ones for one deprecation window, announced
 * on every delivery (RFC 9745 Deprecation: since when; RFC 8594 Sunset: until when).
 */
const LEGACY_HEADERS_DEPRECATED_AT = new Date('2026-11-23T00:00:00.000Z');
const LEGACY_HEADERS_SUNSET_AT = new Date('2027-05-23T00:00:00.000Z');

/** `Hush-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the deprecated scheme. */
/**
 * The version of the event bodies Hush posts, in each body's `version`. 2 (2026-11-28): `data.sequence` is an
 * integer; before it (no `version` field) it was a string of digits. A receiver reading `Number(data.sequence)`
 * takes both.
 */
export const WEBHOOK_EVENT_VERSION = 2;

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
function webhookHeaders(eventId: string, body: string, secrets: readonly string[], now: Date): Record<string, string> {
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

/**
 * One POST of one event through `egress` (its address rules, its pinned lookup); the receiver's status.
 * A redirect is an answer, not a delivery: node:http follows none. The body is not read: nothing of it is
 * kept or shown. Throws EgressRefusedError for a target the rules refuse, before any byte is sent. `now`:
 * the signature's timestamp.
 */
export function postWebhook(egress: WebhookEgress, url: string, eventId: string, body: string, secrets: readonly string[], signal: AbortSignal, now: Date): Promise<number> {
  const target = new URL(url);
  const refused = egress.urlRefusal(target);
  if (refused) return Promise.reject(new EgressRefusedError(refused));
  const https = target.protocol === 'https:';
  const options = {
    method: 'POST',
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port || (https ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    headers: { ...webhookHeaders(eventId, body, secrets, now), 'content-length': String(Buffer.byteLength(body)) },
    // An IP literal skips the lookup (checked above); a name is resolved and checked here, per connection.
    lookup: egress.lookup(target.protocol),
    signal,
  };
  return new Promise<number>((resolve, reject) => {
    const req = https ? httpsRequest({ ...options, agent: egress.agents.https }) : httpRequest({ ...options, agent: egress.agents.http });
    req.once('response', (res) => {
      // An empty answer leaves the socket for the next delivery; any other body is not read at all.
      if (res.statusCode === 204 || res.headers['content-length'] === '0') res.resume();
      else res.destroy();
      res.on('error', () => {}); // an abort after the answer changes nothing
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject); // `on`: an abort may still fire after the answer
    req.end(body);
  });
}
