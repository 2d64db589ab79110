import { Type, type TSchema } from 'typebox';
import { Webhook } from 'standardwebhooks';
import { MAX_WEBHOOK_ATTEMPTS } from '../../store/webhooks-store.ts';
import { WEBHOOK_EVENT_VERSION, webhookSignature } from '../../webhooks/webhook-delivery.ts';
import { EVENT_ID_EXAMPLE, TRACKING_ID_EXAMPLE, releasedStatusExample, statusExample } from '../examples.ts';
import { trackingId } from './fields.ts';

/**
 * The events Hush posts to a partner's webhook, as OpenAPI 3.1 `webhooks` and the component schemas of
 * their bodies. Written in the document's own form (they do not pass through the route converter), so
 * they point at the route schemas' components by $ref.
 */

const ref = (name: string, description?: string) => ({ $ref: `#/components/schemas/${name}`, ...(description ? { description } : {}) });

const eventId = Type.String({
  description: 'The event id: "evt_" and 22 base64url characters ("evt_test_" and 16 for webhook.test). The same in the webhook-id header and on every retry of this event: drop repeats by it',
});
const version = Type.Literal(WEBHOOK_EVENT_VERSION, {
  description: `The event body's version: ${WEBHOOK_EVENT_VERSION} since 2026-11-28 (data.sequence an integer; bodies without a version carried it as a string of digits). A new version changes a field's type or meaning; a new field or event type does not make one`,
});
const createdAt = Type.String({ description: 'When the event happened (for an order event, its transition): ISO 8601 UTC with milliseconds' });

const orderEventData = (status: string, order: string) =>
  Type.Object(
    {
      trackingId: trackingId(),
      status: ref('OrderStatus', status) as unknown as TSchema,
      sequence: Type.Integer({
        minimum: 1,
        description: "The transition's place in the order's history, from 1 (order.history[sequence - 1]). It never decreases along one order's events, which arrive one at a time and in order. An integer since event version 2; before it, a string of digits",
      }),
      order: ref('StatusRecord', order) as unknown as TSchema,
    },
    { description: 'The order the event is about' },
  );

const envelope = (type: string, description: string, data: TSchema, example: unknown) =>
  Type.Object(
    { id: eventId, type: Type.Literal(type, { description: `Always ${type}` }), version, createdAt, data },
    { description, examples: [example] },
  );

const statusChangedExample = {
  id: EVENT_ID_EXAMPLE,
  type: 'order.status_changed',
  version: WEBHOOK_EVENT_VERSION,
  createdAt: statusExample.updatedAt,
  data: { trackingId: TRACKING_ID_EXAMPLE, status: 'completed', sequence: 5, order: statusExample },
};
const releasedExample = {
  id: 'evt_a8Vd2LqN5sXw0RkT3yPbHc',
  type: 'order.released',
  version: WEBHOOK_EVENT_VERSION,
  createdAt: releasedStatusExample.updatedAt,
  data: { trackingId: TRACKING_ID_EXAMPLE, status: 'sending', sequence: 4, order: releasedStatusExample },
};
const heldExample = {
  id: 'evt_Hq4Lm9TzW2xPc7vNd3sRk8',
  type: 'order.held',
  version: WEBHOOK_EVENT_VERSION,
  createdAt: '2026-11-24T10:00:02.512Z',
  data: { trackingId: TRACKING_ID_EXAMPLE, status: 'held', sequence: 4, order: { ...statusExample, status: 'held', final: false, payouts: [], failureReason: 'screening', updatedAt: '2026-11-24T10:00:02.512Z' } },
};
const frozenExample = {
  id: 'evt_Fz7Qw2Ke5nVb8Lx3Pt9Rm4',
  type: 'order.frozen',
  version: WEBHOOK_EVENT_VERSION,
  createdAt: '2026-11-24T11:20:40.007Z',
  data: { trackingId: TRACKING_ID_EXAMPLE, status: 'frozen', sequence: 5, order: { ...statusExample, status: 'frozen', final: true, payouts: [], failureReason: 'screening', updatedAt: '2026-11-24T11:20:40.007Z' } },
};
const testExample = { id: 'evt_test_Zk3v1lq2cJ8pQy0A', type: 'webhook.test', version: WEBHOOK_EVENT_VERSION, createdAt: '2026-11-21T09:58:00.000Z', data: {} };

/** The event bodies, as components (the document's `webhooks` point at them). */
export const WEBHOOK_EVENT_SCHEMAS: Record<string, TSchema> = {
  OrderStatusChangedEvent: envelope(
    'order.status_changed',
    'An order changed status (one event per transition, the order as it was right after it)',
    orderEventData('The status the order entered', 'The status record as of this transition'),
    statusChangedExample,
  ),
  OrderReleasedEvent: envelope(
    'order.released',
    "A held private payout left with its class: sent in addition to the order.status_changed event of the same transition (to sending), right after it, only for orders whose payout was held for its class. order.privacy.heldSeconds says how long it was held; privacy.releasedWith is null here (it is counted where the release's payouts landed, once all are final: read the status record or the receipt)",
    orderEventData('sending: the transition that released the payout', 'The status record as of the release, privacy.heldSeconds set (privacy.releasedWith comes once the release has landed)'),
    releasedExample,
  ),
  OrderHeldEvent: envelope(
    'order.held',
    'Screening stopped the order before anything was sent: sent right after the order.status_changed event of that transition (to held). The funds are untouched; an operator releases the order (it goes on), refunds it, or freezes it (order.frozen). Which list matched is never said',
    orderEventData('held', 'The status record as of the hold (failureReason: screening)'),
    heldExample,
  ),
  OrderFrozenEvent: envelope(
    'order.frozen',
    "An operator froze a held order's funds: final; sent right after the order.status_changed event of that transition (to frozen)",
    orderEventData('frozen', 'The status record as of the freeze'),
    frozenExample,
  ),
  WebhookTestEvent: envelope('webhook.test', 'Sent only by POST /transfer/v1/webhooks/test, to check a receiver; never stored or retried', Type.Object({}, { description: 'Always empty' }), testExample),
};

const headerParam = (name: string, description: string, example: string, deprecated = false) => ({
  in: 'header',
  name,
  required: !deprecated,
  ...(deprecated ? { deprecated: true } : {}),
  description,
  schema: { type: 'string' },
  example,
});

/** The secret the examples are signed with, published so that a receiver's verification can be tried on them. */
export const EXAMPLE_WEBHOOK_SECRET = `whsec_${Buffer.from('hush-openapi-example-webhook-key!').toString('base64')}`;

/**
 * Standard Webhooks (standardwebhooks.com) headers, then the deprecated ones they replace, with the values
 * the delivery code would send for `event` one second after it happened.
 */
function signatureHeaders(event: { id: string; createdAt: string }) {
  const body = JSON.stringify(event);
  const at = new Date(Date.parse(event.createdAt) + 1000);
  const timestampS = Math.floor(at.getTime() / 1000);
  return [
    headerParam('webhook-id', "The event id (the body's id); the same on every retry: drop repeats by it", event.id),
    headerParam('webhook-timestamp', 'Unix seconds of this attempt; refuse a delivery more than 5 minutes off your clock (replays)', String(timestampS)),
    headerParam(
      'webhook-signature',
      `Space-separated "v1,<base64>" signatures: HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>", keyed with your webhook secret (the part after "whsec_", base64-decoded; a base64url secret is the same bytes). One per current secret: two while a replaced secret still signs (24 h after a rotation). Accept the delivery when any one matches; verify over the raw bytes, before parsing. The SDK's verifyWebhook does all this. The examples are signed with ${EXAMPLE_WEBHOOK_SECRET} over the example body as compact JSON`,
      new Webhook(EXAMPLE_WEBHOOK_SECRET).sign(event.id, at, body),
    ),
    headerParam('hush-event-id', 'Deprecated (see the Sunset header): the same as webhook-id', event.id, true),
    headerParam(
      'hush-signature',
      'Deprecated (see the Sunset header): "t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">", keyed with the current secret as text, exactly as issued. Verify webhook-signature instead',
      webhookSignature(EXAMPLE_WEBHOOK_SECRET, timestampS, body),
      true,
    ),
    headerParam('deprecation', 'RFC 9745: since when the hush-* headers are deprecated ("@" and Unix seconds)', '@1795392000', true),
    headerParam('sunset', 'RFC 8594: after this date the hush-* headers are no longer sent', 'Sun, 23 May 2027 00:00:00 GMT', true),
  ];
}

const DELIVERY =
  `Delivered at least once: any 2xx within 5 s acknowledges it; anything else (another status, a redirect, which is not followed, a timeout) is retried with backoff (2^n s after the n-th attempt, at most an hour apart) for ${MAX_WEBHOOK_ATTEMPTS} attempts, about 4 h, then given up. One order's events go out one at a time and in order, so an event not acknowledged holds back that order's later events (never other orders'). Answer fast and do the work afterwards; the body of your answer is not read.`;

// No operationId: the SDK's types index `operations` by the partner API's operations only.
const webhook = (schema: string, example: { id: string; createdAt: string }, summary: string, description: string) => ({
  post: {
    summary,
    description: `${description}\n\n${DELIVERY}`,
    security: [],
    parameters: signatureHeaders(example),
    requestBody: { required: true, description: 'The event, as JSON', content: { 'application/json': { schema: ref(schema), example } } },
    responses: {
      '2XX': { description: 'Acknowledged: the event is not sent again' },
      default: { description: 'Not acknowledged: the event is sent again later' },
    },
  },
});

/** The document's `webhooks`. */
export const WEBHOOKS = {
  'order.status_changed': webhook(
    'OrderStatusChangedEvent',
    statusChangedExample,
    'An order changed status',
    "Posted to your account's webhook URL at every status transition of your orders, with the order's status record as of that transition. Poll GET /transfer/v1/status/{trackingId} for the current one.",
  ),
  'order.released': webhook(
    'OrderReleasedEvent',
    releasedExample,
    'A held private payout was released',
    'Posted when the payout of a private (standard) amount, held to leave together with others of its class, is released: right after the order.status_changed event of that transition (to sending), with the same sequence. order.privacy says how long it was held (heldSeconds); with how many payouts it landed (releasedWith) is counted on the chain once every payout of the release is final, and is read from the status record or the receipt. Orders of an amount that is not private, and Hush runs with privacy off, never send it.',
  ),
  'order.held': webhook('OrderHeldEvent', heldExample, 'Screening held an order', 'Posted when screening stops an order before anything is sent (its deposit or its payout screened blocked, or could not be screened): right after the order.status_changed event of that transition. An operator resolves it: the order then goes on, is refunded, or is frozen.'),
  'order.frozen': webhook('OrderFrozenEvent', frozenExample, "An operator froze a held order's funds", 'Posted when an operator freezes a held order (final): right after the order.status_changed event of that transition.'),
  'webhook.test': webhook(
    'WebhookTestEvent',
    testExample,
    'A test event',
    'Posted by POST /transfer/v1/webhooks/test, signed like every event, to check that your receiver verifies and acknowledges deliveries.',
  ),
};
