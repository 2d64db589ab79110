/**
 * verifyWebhook gives one event shape whichever Hush signed it: a body of event version 2 as it is, and a body
 * from a Hush before it (no `version`, `data.sequence` a string of digits) as version 1 with its sequence a number,
 * so a receiver written against the SDK's types keeps working across the change. A forged body is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { HushWebhookError, verifyWebhook } from '../../packages/sdk/src/index.ts';

const SECRET = `whsec_${Buffer.from('verify-webhook-test-secret-32-bytes!').toString('base64')}`;

function signed(body: object): { raw: string; headers: Record<string, string> } {
  const raw = JSON.stringify(body);
  const id = (body as { id: string }).id;
  const at = new Date();
  return { raw, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(SECRET).sign(id, at, raw) } };
}

const order = { trackingId: 'trk_2bJvQfJSfdEGjXaXikmv4o', status: 'completed' };

test('a version 2 body comes through as sent: sequence an integer', () => {
  const { raw, headers } = signed({ id: 'evt_a', type: 'order.status_changed', version: 2, createdAt: '2026-11-28T10:00:00.000Z', data: { trackingId: order.trackingId, status: 'completed', sequence: 5, order } });
  const e = verifyWebhook(raw, headers, SECRET);
  assert.equal(e.version, 2);
  assert.ok(e.type === 'order.status_changed');
  assert.equal(e.data.sequence, 5);
});

test("an older Hush's unversioned body reads as version 1 with its sequence a number", () => {
  const { raw, headers } = signed({ id: 'evt_b', type: 'order.status_changed', createdAt: '2026-11-28T10:00:00.000Z', data: { trackingId: order.trackingId, status: 'completed', sequence: '5', order } });
  const e = verifyWebhook(raw, headers, SECRET);
  assert.equal(e.version, 1);
  assert.ok(e.type === 'order.status_changed');
  assert.strictEqual(e.data.sequence, 5);
});

test('a body changed after signing is refused', () => {
  const { raw, headers } = signed({ id: 'evt_c', type: 'webhook.test', version: 2, createdAt: '2026-11-28T10:00:00.000Z', data: {} });
  assert.throws(() => verifyWebhook(raw.replace('"version":2', '"version":3'), headers, SECRET), HushWebhookError);
});
