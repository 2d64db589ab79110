/**
 * A partner sets, rotates and clears its own webhook over the partner API (docs/spec.md §4, "Self-service"),
 * against a real, listening Hush and a real receiver on 127.0.0.1 (the embedded dev mode lets webhooks reach
 * this machine): a refused address gets WEBHOOK_URL_REFUSED (the operator's check, one implementation) and
 * sets nothing; the secret is answered once and never shown again; after a rotation a real order event and
 * the test event each carry two v1 signatures, one verifying with the old secret and one with the new; the
 * old one stops signing after its 24 h; clearing stops events; another account's webhook is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../packages/sdk/src/index.ts';
import { address, expectError, expectOk, quoteAndOrder, registerSecret, startTestHush, type TestHush } from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.ts';

const WEBHOOK = '/transfer/v1/account/webhook';
const ROTATE = `${WEBHOOK}/rotate-secret`;
const DAY_MS = 86_400_000;

let t: TestHush;
let receiver: WebhookReceiver;
let hookUrl: string;
let received: ReceivedWebhook[];

before(async () => {
  t = await startTestHush();
  receiver = await startWebhookReceiver('/hooks/hush');
  ({ url: hookUrl, received } = receiver);
});
after(async () => {
  await t?.close();
  await receiver?.close();
});

const signatures = (r: ReceivedWebhook) => String(r.headers['webhook-signature']).split(' ');
const verifies = (r: ReceivedWebhook, secret: string) => {
  try {
    return verifyWebhook(r.body, r.headers as Record<string, string>, secret);
  } catch {
    return null;
  }
};

describe('self-service: the webhook', () => {
  test('refused addresses get WEBHOOK_URL_REFUSED, malformed URLs INVALID_REQUEST, and nothing is set', async () => {
    const acct = await t.createAccount();
    for (const url of ['https://10.20.30.40/hooks', 'https://169.254.169.254/latest/meta-data/', 'https://[fd00::1]/hooks', 'https://192.168.1.7/hooks']) {
      const e = expectError(await acct.client.request('PUT', WEBHOOK, { body: { url } }), 400, 'WEBHOOK_URL_REFUSED');
      assert.deepEqual(e.details, { field: 'url', reason: 'not_public' }, url);
      assert.match(e.message, /not a public one/);
    }
    // Plain http goes only to this machine.
    assert.deepEqual(expectError(await acct.client.request('PUT', WEBHOOK, { body: { url: 'http://hooks.partner.example/x' } }), 400, 'WEBHOOK_URL_REFUSED').details, { field: 'url', reason: 'plain_http' });
    for (const url of ['ftp://hooks.partner.example/x', 'https://user:pw@hooks.partner.example/x', 'not a url', `https://hooks.partner.example/${'x'.repeat(2048)}`]) {
      expectError(await acct.client.request('PUT', WEBHOOK, { body: { url } }), 400, 'INVALID_REQUEST');
    }
    expectError(await acct.client.request('PUT', WEBHOOK, { body: {} }), 400, 'INVALID_REQUEST');
    assert.equal(expectOk(await acct.client.get('/transfer/v1/account')).account.webhook, null);
  });

  test('set, rotate: an order event and the test event carry two v1 signatures, each secret verifies one; clear stops events', { timeout: 60_000 }, async () => {
    const acct = await t.createAccount();
    const other = await t.createAccount();
    const theirs = expectOk(await other.client.request('PUT', WEBHOOK, { body: { url: `${hookUrl}?other` } }));
    registerSecret(theirs.secret);

    const set = expectOk(await acct.client.request('PUT', WEBHOOK, { body: { url: hookUrl } }));
    assert.deepEqual(Object.keys(set).sort(), ['previousSecretExpiresAt', 'secret', 'success', 'url']);
    assert.equal(set.url, hookUrl);
    assert.match(set.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'Standard Webhooks: whsec_ + base64 of 24 bytes');
    assert.equal(set.previousSecretExpiresAt, null, 'no secret was replaced');
    registerSecret(set.secret); // from now on no answer may contain it
    const shown = expectOk(await acct.client.get('/transfer/v1/account')).account.webhook;
    assert.deepEqual(shown, { url: hookUrl, previousSecretExpiresAt: null });

    const rotated = expectOk(await acct.client.post(ROTATE, {}));
    registerSecret(rotated.secret);
    assert.notEqual(rotated.secret, set.secret);
    assert.equal(rotated.url, hookUrl);
    const grace = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
    assert.ok(Math.abs(grace - DAY_MS) < 60_000, `the old secret signs for 24 h more: ${grace} ms`);
    assert.equal(expectOk(await acct.client.get('/transfer/v1/account')).account.webhook.previousSecretExpiresAt, rotated.previousSecretExpiresAt);

    // A real order event: the dispatcher posts the order's awaiting_deposit transition.
    received.length = 0;
    const { o } = await quoteAndOrder(acct.client, await address(), await address());
    const event = await pollUntil(async () => received.find((r) => r.body.includes(o.trackingId)), { timeoutMs: 20_000, what: "the order's first event" });
    const test = expectOk(await acct.client.post('/transfer/v1/webhooks/test', {}));
    assert.equal(test.outcome, 'delivered');
    const testEvent = received.find((r) => r.headers['webhook-id'] === test.eventId)!;
    for (const [what, r] of [['order event', event], ['test event', testEvent]] as const) {
      assert.equal(signatures(r).length, 2, `${what}: two v1 signatures during the rotation`);
      assert.ok(signatures(r).every((s) => s.startsWith('v1,')));
      assert.equal(verifies(r, rotated.secret)?.id, r.headers['webhook-id'], `${what}: verifies with the new secret`);
      assert.equal(verifies(r, set.secret)?.id, r.headers['webhook-id'], `${what}: verifies with the old secret`);
      assert.equal(verifies(r, theirs.secret), null, `${what}: not with another account's secret`);
    }
    assert.equal(verifies(event, rotated.secret)?.type, 'order.status_changed');
    assert.ok(!received.some((r) => r.body.includes(o.trackingId) && verifies(r, theirs.secret)), "nothing of this order went out under the other account's secret");

    // Issue 53: a second rotation keeps the first one's promise: both replaced secrets sign until their own 24 h end.
    const second = expectOk(await acct.client.post(ROTATE, {}));
    registerSecret(second.secret);
    assert.ok(Date.parse(second.previousSecretExpiresAt) >= Date.parse(rotated.previousSecretExpiresAt));
    const three = expectOk(await acct.client.post('/transfer/v1/webhooks/test', {}));
    const thrice = received.find((r) => r.headers['webhook-id'] === three.eventId)!;
    assert.equal(signatures(thrice).length, 3, 'the current secret and both replaced ones');
    for (const secret of [second.secret, rotated.secret, set.secret]) assert.ok(verifies(thrice, secret), 'each secret still verifies');
    // At most 9 replaced secrets sign at once: beyond, the rotation is refused until the oldest ends (none is cut short).
    const rotations = [];
    for (let i = 0; i < 7; i++) rotations.push(expectOk(await acct.client.post(ROTATE, {})));
    rotations.forEach((r) => registerSecret(r.secret));
    const refused = await acct.client.post(ROTATE, {});
    const err = expectError(refused, 429, 'RATE_LIMITED');
    assert.match(err.message, /9 replaced secrets still sign beside the current one, each for the 24 h it was promised/);
    assert.ok(Number(refused.headers.get('retry-after')) > 86_000, 'retry when the oldest ends, a day from now');
    const latest = rotations.at(-1)!;
    const full = expectOk(await acct.client.post('/transfer/v1/webhooks/test', {}));
    const ten = received.find((r) => r.headers['webhook-id'] === full.eventId)!;
    assert.equal(signatures(ten).length, 10);
    assert.ok(verifies(ten, set.secret) && verifies(ten, latest.secret), 'the first secret still signs after eight more rotations');

    // After its 24 h the old secret signs no more.
    await t.db.query("UPDATE accounts SET webhook_previous_secrets = (SELECT coalesce(jsonb_agg(jsonb_set(e, '{until}', to_jsonb(now() - interval '1 second'))), '[]'::jsonb) FROM jsonb_array_elements(webhook_previous_secrets) e) WHERE id = $1", [acct.id]);
    const later = expectOk(await acct.client.post('/transfer/v1/webhooks/test', {}));
    const one = received.find((r) => r.headers['webhook-id'] === later.eventId)!;
    assert.equal(signatures(one).length, 1);
    assert.ok(verifies(one, latest.secret) && !verifies(one, set.secret) && !verifies(one, rotated.secret));
    assert.equal(expectOk(await acct.client.get('/transfer/v1/account')).account.webhook.previousSecretExpiresAt, null);

    // Setting the URL again is a rotation too (the operator's path: one implementation).
    const again = expectOk(await acct.client.request('PUT', WEBHOOK, { body: { url: hookUrl } }));
    registerSecret(again.secret);
    assert.ok(again.previousSecretExpiresAt !== null, 'the replaced secret signs beside the new one');

    expectOk(await acct.client.request('DELETE', WEBHOOK));
    expectOk(await acct.client.request('DELETE', WEBHOOK), 200); // none: the same answer
    assert.equal(expectOk(await acct.client.get('/transfer/v1/account')).account.webhook, null);
    expectError(await acct.client.post(ROTATE, {}), 404, 'NOT_FOUND');
    expectError(await acct.client.post('/transfer/v1/webhooks/test', {}), 404, 'NOT_FOUND');
    const before = received.length;
    const { o: quiet } = await quoteAndOrder(acct.client, await address(), await address());
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1)', [quiet.trackingId]);
    assert.equal(rows[0]!.n, 0, 'no events for an account without a webhook');
    assert.equal(received.length, before);
    // The other account's webhook is untouched by all of it.
    assert.deepEqual(expectOk(await other.client.get('/transfer/v1/account')).account.webhook, { url: `${hookUrl}?other`, previousSecretExpiresAt: null });
  });
});
