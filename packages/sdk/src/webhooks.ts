import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { StatusRecord } from './types.ts';

/** An order event's data: the transition's status, its place in the order's history (from 1), the status record as of it. */
export interface OrderEventData<R extends StatusRecord = StatusRecord> {
  trackingId: string;
  status: StatusRecord['status'];
  /** An integer (event version 2); verifyWebhook turns an older Hush's string of digits into one. */
  sequence: number;
  order: R;
}

/** The status record of a released order: the set its payout went out with and how long it was held. */
export type ReleasedStatusRecord = StatusRecord & { privacy: StatusRecord['privacy'] & { releasedWith: number; heldSeconds: number } };

/**
 * What Hush posts to a partner's webhook (Standard Webhooks: webhook-id / -timestamp / -signature).
 * `order.status_changed`: every transition. `order.released`: a payout held for its class (a private
 * amount, privacy on) goes out; sent once, right after the `order.status_changed` of the same transition
 * (`sending`, same `sequence`), with `order.privacy.releasedWith` and `heldSeconds` set. `order.held` / `order.frozen`:
 * screening stopped the order / an operator froze it (docs/spec.md §12), after their transitions' events. A receiver should
 * answer 2xx to types it does not know (later versions may add some). `version` is the body's version (2: `sequence` an
 * integer); verifyWebhook gives an older Hush's unversioned body as version 1 with its sequence as a number.
 */
export type HushWebhookEvent =
  | { id: string; type: 'order.status_changed'; version: number; createdAt: string; data: OrderEventData }
  | { id: string; type: 'order.released'; version: number; createdAt: string; data: OrderEventData<ReleasedStatusRecord> }
  | { id: string; type: 'order.held'; version: number; createdAt: string; data: OrderEventData }
  | { id: string; type: 'order.frozen'; version: number; createdAt: string; data: OrderEventData }
  | { id: string; type: 'webhook.test'; version: number; createdAt: string; data: Record<string, never> };

export class HushWebhookError extends Error {
  override readonly name = 'HushWebhookError';
}

/**
 * Checks a delivery's Standard Webhooks signature (any of the `v1,` signatures, so both secrets verify
 * during a rotation) and its timestamp (±5 min, against replays), then parses the body. `rawBody` must be
 * the bytes as received, before any JSON parsing. Throws HushWebhookError when it is not Hush's.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string): HushWebhookEvent {
  const get = (name: string): string => {
    const v = headers instanceof Headers ? headers.get(name) : (headers[name] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]);
    return Array.isArray(v) ? v.join(' ') : (v ?? '');
  };
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  // Secrets issued before Standard Webhooks were base64url: the same key in another alphabet.
  const normalized = `whsec_${secret.replace(/^whsec_/, '').replace(/-/g, '+').replace(/_/g, '/')}`;
  let event: HushWebhookEvent;
  try {
    event = new Webhook(normalized).verify(body, { 'webhook-id': get('webhook-id'), 'webhook-timestamp': get('webhook-timestamp'), 'webhook-signature': get('webhook-signature') }) as HushWebhookEvent;
  } catch (e) {
    throw new HushWebhookError(e instanceof WebhookVerificationError ? e.message : `invalid webhook: ${(e as Error).message}`);
  }
  // One shape whichever Hush sent it: a body before version 2 had no version and its sequence as a string of digits.
  event.version ??= 1;
  const data = event.data as { sequence?: unknown };
  if (typeof data.sequence === 'string') data.sequence = Number(data.sequence);
  return event;
}
