import { HushError } from '../domain/errors.ts';
import { NOT_PUBLIC, WebhookEgress } from './webhook-egress.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Without a policy, the production one: https to public addresses only. */
const PUBLIC_ONLY = new WebhookEgress({ loopback: false });

/**
 * An absolute https URL without credentials, at most 2048 characters (else INVALID_REQUEST), that `egress`
 * does not refuse on its face (else WEBHOOK_URL_REFUSED: an IP literal that is not public, localhost outside
 * the embedded dev mode; plain http only to this machine in that mode: events carry deposits and payouts, in
 * clear they would link sender and recipient). A name is resolved only when delivering, where the same rules
 * are the real guard. The one check of the admin API, the admin CLI and the partner's own PUT.
 */
export function validateWebhookUrl(url: unknown, egress: WebhookEgress = PUBLIC_ONLY): string {
  let parsed: URL | null = null;
  try {
    parsed = typeof url === 'string' && url.length <= MAX_WEBHOOK_URL_LENGTH ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || !(parsed.protocol === 'https:' || parsed.protocol === 'http:') || parsed.username || parsed.password) {
    throw new HushError('INVALID_REQUEST', 'url must be an absolute https URL without credentials (http only to localhost), at most 2048 characters', { field: 'url' });
  }
  const refused = egress.urlRefusal(parsed);
  if (refused) {
    throw new HushError('WEBHOOK_URL_REFUSED', `url is not allowed: ${refused}`, { field: 'url', reason: refused === NOT_PUBLIC ? 'not_public' : 'plain_http' });
  }
  return parsed.href;
}
