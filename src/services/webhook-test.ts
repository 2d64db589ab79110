import { randomBytes } from 'node:crypto';
import { HushError } from '../domain/errors.ts';
import type { Queryable } from '../store/db.ts';
import { getWebhook } from '../store/webhooks-store.ts';
import { postWebhook } from '../worker/webhook-delivery.ts';

const TIMEOUT_MS = 5_000;

export interface TestSendResult {
  eventId: string;
  delivered: boolean;
  httpStatus: number | null;
  error: string | null;
}

/**
 * POST /transfer/v1/webhooks/test: one `webhook.test` event, signed and sent now exactly as order events
 * are (every current secret, the deprecated headers too), so a partner can check its receiver. Not
 * stored and not retried; the answer says what the receiver did.
 */
export async function sendTestWebhook(db: Queryable, accountId: string): Promise<TestSendResult> {
  const hook = await getWebhook(db, accountId);
  if (!hook) throw new HushError('NOT_FOUND', 'This account has no webhook; ask the operator to set one');
  const eventId = `evt_test_${randomBytes(12).toString('base64url')}`;
  const body = JSON.stringify({ id: eventId, type: 'webhook.test', createdAt: new Date().toISOString(), data: {} });
  const secrets = hook.previousSecret ? [hook.secret, hook.previousSecret] : [hook.secret];
  try {
    const status = await postWebhook(hook.url, eventId, body, secrets, AbortSignal.timeout(TIMEOUT_MS));
    return { eventId, delivered: status >= 200 && status < 300, httpStatus: status, error: null };
  } catch (e) {
    // The receiver's failure is the answer, not an error of this request.
    return { eventId, delivered: false, httpStatus: null, error: (e as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed' };
  }
}
