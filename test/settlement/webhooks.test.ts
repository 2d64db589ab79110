/**
 * Webhooks (docs/spec.md §3 webhook URL + secret, §5 "every transition … emitted as a webhook event"), end to end
 * on a simulated Hush (test/support/sim-hush.ts: API, worker, store and local chain on the simulated clock): it
 * settles a real order, and its own dispatcher delivers one signed event per transition in the order's history
 * to a partner's receiver (test/support/sim-webhook-receiver.ts: a public https name, the production egress). A
 * receiver that fails gets the same event again (same id) after the backoff; an account without a webhook gets
 * none; the admin API sets and clears it. Deliveries follow Standard Webhooks (checked with the SDK's
 * verifyWebhook, built on the standardwebhooks package, at the simulated instant) and still carry the deprecated
 * Hush-* pair with Deprecation/Sunset; a new secret leaves the old one signing beside it for 24 h; the test-send
 * endpoint delivers a signed webhook.test event through the same path.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { HushApiError } from '../../packages/sdk/src/index.ts';
import { expectError, expectOk, registerSecret } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { simSdk } from '../support/sim-sdk.ts';
import { SETTLEMENT_ENV } from '../support/sim-settlement.ts';
import { deliveriesByOutcome, startSimWebhookReceiver, verifyOnSim, type SimReceived, type SimWebhookReceiver } from '../support/sim-webhook-receiver.ts';
import { placeOrder } from '../support/settlement.ts';

describe('webhooks: one signed event per order transition, retried until delivered', () => {
  let h: SimHush;
  let receiver: SimWebhookReceiver;

  before(async () => {
    h = await startSimHush({ seed: 3, env: SETTLEMENT_ENV });
    receiver = await startSimWebhookReceiver(h);
  });
  after(async () => {
    await closeSim(h);
    await receiver?.close();
  });

  const admin = () => h.ops;
  const rows = async <T>(sql: string, params: unknown[]) => (await h.drive(h.db.query<T>(sql, params))).rows;

  function verifySignature(r: SimReceived, secret: string): void {
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['hush-signature']));
    assert.ok(m, `Hush-Signature header: ${r.headers['hush-signature']}`);
    const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex');
    assert.equal(m[2], expected, 'the signature is HMAC-SHA256 of "<t>.<body>" with the webhook secret');
    // The clock stands still while a delivery is on the wire: signed at the instant it arrived.
    assert.equal(Number(m[1]), Math.floor(r.at / 1000), 'the signature timestamp is the instant it was sent');
    // Standard Webhooks, as a partner's receiver checks it.
    const event = verifyOnSim(h, r, secret);
    assert.equal(event.id, r.headers['webhook-id']);
    assert.equal(r.headers['webhook-timestamp'], m[1]);
    assert.match(String(r.headers['deprecation']), /^@\d+$/, 'RFC 9745 Deprecation on the old headers');
    assert.ok(Date.parse(String(r.headers['sunset'])) > Number(String(r.headers['deprecation']).slice(1)) * 1000, 'RFC 8594 Sunset after the deprecation');
  }

  async function settledOrder(acct: SimAccount) {
    const sender = await h.wallet({ sol: 2n * SOL });
    const placed = await placeOrder(acct.client, { amount: '50000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: h.address() });
    await h.deposit(placed.order, sender);
    return h.waitForOrder(acct.client, placed.trackingId, ['completed']);
  }

  test('the admin API sets a webhook (secret shown once) and refuses bad URLs and unknown accounts', async () => {
    const acct = await h.createAccount();
    expectError(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'ftp://example.com/x' } }), 400, 'INVALID_REQUEST');
    expectError(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'https://user:pw@example.com/x' } }), 400, 'INVALID_REQUEST');
    // Events carry deposits and payouts: plain http only to this machine.
    expectError(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'http://partner.example/x' } }), 400, 'WEBHOOK_URL_REFUSED');
    expectError(await admin().request('PUT', '/admin/v1/accounts/acc_1111111111111111/webhook', { body: { url: receiver.url } }), 404, 'NOT_FOUND');
    const set = await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } });
    const body = expectOk(set);
    assert.equal(body.url, receiver.url);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'Standard Webhooks: whsec_ + base64 of 24 bytes');
    registerSecret(body.secret);
    expectOk(await admin().request('DELETE', `/admin/v1/accounts/${acct.id}/webhook`));
    expectError(await admin().request('DELETE', '/admin/v1/accounts/acc_1111111111111111/webhook'), 404, 'NOT_FOUND');
  });

  test('a settled order: every transition of its history arrives once delivered, signed, with the status record; a failed delivery is retried with the same id', async () => {
    const acct = await h.createAccount();
    const quiet = await h.createAccount(); // no webhook: no events
    const { secret } = expectOk(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
    registerSecret(secret);
    receiver.received.length = 0;
    const counted = await deliveriesByOutcome(h);
    assert.deepEqual(Object.keys(counted).sort(), ['delivered', 'dropped', 'refused', 'rejected', 'unreachable'], 'every outcome is served from the start');
    receiver.fail(1); // the first delivery fails: it must come again
    const [done] = await Promise.all([settledOrder(acct), settledOrder(quiet)]);
    const statuses = done.history.map((x: { status: string }) => x.status);
    assert.deepEqual(statuses.slice(0, 1), ['awaiting_deposit']);
    assert.equal(statuses.at(-1), 'completed');

    // Delivered: one 2xx per history entry (the failed attempt's retry comes after its backoff), and every event
    // of the order marked delivered (the mark follows the answer), none awaiting a retry.
    const delivered = () => receiver.received.filter((r) => r.answered === 204);
    const marks = await h.until(`${statuses.length} events delivered and marked`, async () => {
      const [row] = await rows<{ n: number; delivered: number }>(
        'SELECT count(*)::int AS n, count(delivered_at)::int AS delivered FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1)',
        [done.trackingId],
      );
      return delivered().length >= statuses.length && row!.delivered === statuses.length ? row : null;
    }, 60_000);
    assert.deepEqual(marks, { n: statuses.length, delivered: statuses.length });
    // Nothing more comes: past the dispatcher's longest idle wait, still one delivery per event.
    await h.advance(10_000);
    assert.equal(delivered().length, statuses.length, 'no delivery beyond one per event');
    const events = delivered().map((r) => ({ r, e: JSON.parse(r.body) }));
    assert.equal(events.length, statuses.length, 'exactly one delivered event per transition');
    assert.deepEqual(events.map(({ e }) => e.data.status).sort(), [...statuses].sort(), 'the events are the transitions of the history');
    assert.equal(new Set(events.map(({ e }) => e.id)).size, events.length, 'event ids are unique');
    // In order, the failed first one included: later events waited behind it (or carry a larger sequence).
    const seqs = events.map(({ e }) => BigInt(e.data.sequence));
    assert.deepEqual([...seqs].sort((x, y) => (x < y ? -1 : 1)), seqs, `delivered in transition order: ${events.map(({ e }) => e.data.status).join(', ')}`);
    for (const { r, e } of events) {
      verifySignature(r, secret);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['hush-event-id'], e.id);
      assert.match(e.id, /^evt_[A-Za-z0-9_-]{22}$/, 'an opaque id, not a sequence number');
      // sequence is the transition's place in this order's history (from 1), not a global counter.
      assert.equal(done.history[Number(e.data.sequence) - 1]?.status, e.data.status, `sequence ${e.data.sequence} indexes the history`);
      assert.equal(e.type, 'order.status_changed');
      assert.equal(e.data.trackingId, done.trackingId);
      assert.ok(done.history.some((x: { status: string; at: string }) => x.status === e.data.status && x.at === e.createdAt), `${e.data.status} at ${e.createdAt} is in the history`);
      assert.equal(e.data.order.trackingId, done.trackingId);
      // The record rides as it stood right after this transition, even on a retry sent after the order moved on.
      assert.equal(e.data.order.status, e.data.status);
      assert.equal(e.data.order.final, e.data.status === 'completed');
      assert.equal(e.data.order.updatedAt, e.createdAt);
      assert.deepEqual(e.data.order.history, done.history.slice(0, Number(e.data.sequence)));
      assert.deepEqual(e.data.order.payouts, e.data.status === 'completed' ? done.payouts : []);
      assert.equal(e.data.order.deposit === null, e.data.status === 'awaiting_deposit');
    }
    // The failed attempt was the same event as one delivered later, after the backoff.
    const failed = receiver.received.filter((r) => r.answered === 500);
    assert.equal(failed.length, 1);
    const retried = events.find(({ e }) => e.id === JSON.parse(failed[0]!.body).id);
    assert.ok(retried, 'the failed event was delivered on retry, under the same id');
    assert.ok(retried.r.at > failed[0]!.at, 'retried later, not at once');
    // /metrics counted them: one rejected (the 500), one delivered per event (other tests' accounts deliver nothing meanwhile).
    const now = await deliveriesByOutcome(h);
    assert.equal(now.rejected! - counted.rejected!, 1, 'the 500 counted as rejected');
    assert.equal(now.delivered! - counted.delivered!, statuses.length, 'each delivered event counted once');
    assert.equal(now.unreachable, counted.unreachable, 'nothing unreachable');
    assert.ok(receiver.received.every((r) => JSON.parse(r.body).data.trackingId === done.trackingId), 'the account without a webhook sent nothing');
    const [none] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [quiet.id]);
    assert.equal(none!.n, 0);

    // Cleared: later transitions of this account are not sent.
    expectOk(await admin().request('DELETE', `/admin/v1/accounts/${acct.id}/webhook`));
    const before = receiver.received.length;
    const later = await settledOrder(acct);
    const [queued] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1)', [later.trackingId]);
    assert.equal(queued!.n, 0, 'no events queued after the webhook was cleared');
    assert.equal(receiver.received.length, before, 'and none sent');
  });

  test('rotation: after a new secret both sign for 24 h; test-send delivers a signed webhook.test event', async () => {
    const acct = await h.createAccount();
    const sdk = simSdk(h, acct.apiKey);
    const none = await sdk.testWebhook().catch((e: unknown) => e);
    assert.ok(none instanceof HushApiError && none.code === 'NOT_FOUND', 'no webhook: nothing to test');
    const { secret: old } = expectOk(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
    const { secret: current } = expectOk(await admin().request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
    registerSecret(old);
    registerSecret(current);
    assert.notEqual(old, current);
    receiver.received.length = 0;
    const sent = await sdk.testWebhook();
    assert.deepEqual({ outcome: sent.outcome, delivered: sent.delivered }, { outcome: 'delivered', delivered: true });
    const [r] = receiver.received;
    assert.ok(r && receiver.received.length === 1);
    assert.equal(String(r.headers['webhook-signature']).split(' ').length, 2, 'two v1 signatures during the rotation');
    for (const secret of [current, old]) {
      const event = verifyOnSim(h, r, secret);
      assert.deepEqual({ id: event.id, type: event.type }, { id: sent.eventId, type: 'webhook.test' });
    }
    assert.throws(() => verifyOnSim(h, r, 'whsec_' + Buffer.alloc(24, 7).toString('base64')), /signature/i);
    assert.throws(() => verifyOnSim(h, r, current, r.body.replace('webhook.test', 'webhook.tesT')), /signature/i, 'a changed body fails');
    // The old secret stops signing after the window.
    await rows("UPDATE accounts SET webhook_previous_secrets = (SELECT coalesce(jsonb_agg(jsonb_set(e, '{until}', to_jsonb(now() - interval '1 second'))), '[]'::jsonb) FROM jsonb_array_elements(webhook_previous_secrets) e) WHERE id = $1", [acct.id]);
    receiver.received.length = 0;
    assert.equal((await sdk.testWebhook()).delivered, true);
    assert.equal(String(receiver.received[0]!.headers['webhook-signature']).split(' ').length, 1);
    assert.throws(() => verifyOnSim(h, receiver.received[0]!, old), /signature/i);
    // A receiver's error is `failed`, nothing more: no status code, body or error text comes back.
    receiver.fail(1);
    const failed = expectOk(await acct.client.request('POST', '/transfer/v1/webhooks/test', { body: {} }));
    assert.deepEqual(Object.keys(failed).sort(), ['delivered', 'eventId', 'outcome', 'success']);
    assert.deepEqual({ outcome: failed.outcome, delivered: failed.delivered }, { outcome: 'failed', delivered: false });
  });
});
