import { HushError } from '../domain/errors.ts';
import type { Queryable } from '../store/db.ts';
import { getWebhook } from '../store/webhooks-store.ts';
import { postWebhook, WEBHOOK_EVENT_VERSION } from './webhook-delivery.ts';
import { EgressRefusedError, type WebhookEgress } from './webhook-egress.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export { webhookEgressFor } from './webhook-egress.ts';

const TIMEOUT_MS = 5_000;

/** delivered: answered 2xx; refused: not sent, the URL's address is not allowed; failed: anything else. */
export type TestSendOutcome = 'delivered' | 'refused' | 'failed';

export interface TestSendResult {
  eventId: string;
  outcome: TestSendOutcome;
  delivered: boolean;
}

/**
 * POST /transfer/v1/webhooks/test: one `webhook.test` event, signed and sent now exactly as order events
 * are (every current secret, the deprecated headers too, the same egress rules), so a partner can check
 * its receiver. Not stored and not retried. The answer is the outcome only: no status code, body or error
 * text of the receiver, so the endpoint cannot be used to probe what answers at an address.
 */
export async function sendTestWebhook(db: Queryable, accountId: string, egress: WebhookEgress, clock: Clock, random: Random): Promise<TestSendResult> {
  const hook = await getWebhook(db, accountId);
  if (!hook) throw new HushError('NOT_FOUND', 'This account has no webhook; set one with PUT /transfer/v1/account/webhook');
  const eventId = `evt_test_${random.bytes(12).toString('base64url')}`;
  const now = clock.date();
  const body = JSON.stringify({ id: eventId, type: 'webhook.test', version: WEBHOOK_EVENT_VERSION, createdAt: now.toISOString(), data: {} });
  const secrets = [hook.secret, ...hook.previousSecrets];
  let outcome: TestSendOutcome;
  try {
    const status = await postWebhook(egress, hook.url, eventId, body, secrets, clock.timeout(TIMEOUT_MS), now);
    outcome = status >= 200 && status < 300 ? 'delivered' : 'failed';
  } catch (e) {
    // The receiver's failure is the answer, not an error of this request.
    outcome = e instanceof EgressRefusedError ? 'refused' : 'failed';
  }
  return { eventId, outcome, delivered: outcome === 'delivered' };
}
