/**
 * Webhooks (docs/spec.md §3 webhook URL + secret, §5 "every transition … emitted as a webhook event"), end to end:
 * a listening Hush (embedded chain, PGlite, worker) settles a real order, and a real HTTP receiver on
 * 127.0.0.1 gets one signed event per transition in the order's history. A receiver that fails gets the
 * same event again (same id) after the backoff; an account without a webhook gets none; the admin API
 * sets and clears it. Deliveries follow Standard Webhooks (checked with the SDK's verifyWebhook, built on
 * the standardwebhooks package) and still carry the deprecated Hush-* pair with Deprecation/Sunset; a new
 * secret leaves the old one signing beside it for 24 h; the test-send endpoint delivers a signed
 * webhook.test event through the same path.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { createHushClient, HushApiError, verifyWebhook } from '../../packages/sdk/src/index.ts';
import { HushClient, expectError, expectOk, registerSecret, sleep, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { chainAt, newWallet, placeOrder, signAndSend, waitForOrder, SOL, type Chain } from '../support/settlement.ts';
import { pollUntil } from '../support/localnet.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A webhook receiver: records every request; `fail(n)` answers the next n with 500. */
async function startReceiver(): Promise<{ url: string; received: Received[]; fail(n: number): void; close(): Promise<void> }> {
  const received: Received[] = [];
  let failures = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const answered = failures > 0 ? (failures--, 500) : 204;
      received.push({ headers: req.headers, body, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/hush`,
    received,
    fail: (n) => (failures = n),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function verifySignature(r: Received, secret: string): void {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['hush-signature']));
  assert.ok(m, `Hush-Signature header: ${r.headers['hush-signature']}`);
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex');
  assert.equal(m[2], expected, 'the signature is HMAC-SHA256 of "<t>.<body>" with the webhook secret');
  assert.ok(Math.abs(Date.now() / 1000 - Number(m[1])) < 120, 'the signature timestamp is current');
  // Standard Webhooks, as a partner's receiver checks it.
  const event = verifyWebhook(r.body, r.headers as Record<string, string>, secret);
  assert.equal(event.id, r.headers['webhook-id']);
  assert.equal(r.headers['webhook-timestamp'], m[1]);
  assert.match(String(r.headers['deprecation']), /^@\d+$/, 'RFC 9745 Deprecation on the old headers');
  assert.ok(Date.parse(String(r.headers['sunset'])) > Number(String(r.headers['deprecation']).slice(1)) * 1000, 'RFC 8594 Sunset after the deprecation');
}

/** hush_webhook_deliveries_total by outcome, read off the ops listener's /metrics as a scraper would. */
async function deliveriesByOutcome(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^hush_webhook_deliveries_total\{outcome="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describe('webhooks: one signed event per order transition, retried until delivered', () => {
  let t: TestHush;
  let chain: Chain;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: HushClient;

  before(async () => {
    t = await startTestHush({ admin: true, env: { LOCALNET_SLOT_MS: '100' } });
    chain = chainAt(t.chainUrl);
    receiver = await startReceiver();
    admin = new HushClient(t.opsUrl, t.adminToken!);
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function settledOrder(acct: TestAccount) {
    const sender = await newWallet(chain, { sol: 2n * SOL });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount: '50000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient });
    await signAndSend(chain, placed.order.transaction, sender);
    return waitForOrder(acct.client, placed.trackingId, ['completed'], 60_000);
  }

  test('the admin API sets a webhook (secret shown once) and refuses bad URLs and unknown accounts', async () => {
    const acct = await t.createAccount();
    expectError(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'ftp://example.com/x' } }), 400, 'INVALID_REQUEST');
    expectError(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'https://user:pw@example.com/x' } }), 400, 'INVALID_REQUEST');
    // Events carry deposits and payouts: plain http only to this machine.
    expectError(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'http://partner.example/x' } }), 400, 'WEBHOOK_URL_REFUSED');
    expectError(await admin.request('PUT', '/admin/v1/accounts/acc_1111111111111111/webhook', { body: { url: receiver.url } }), 404, 'NOT_FOUND');
    const set = await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } });
    const body = expectOk(set);
    assert.equal(body.url, receiver.url);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'Standard Webhooks: whsec_ + base64 of 24 bytes');
    registerSecret(body.secret);
    expectOk(await admin.request('DELETE', `/admin/v1/accounts/${acct.id}/webhook`));
    expectError(await admin.request('DELETE', '/admin/v1/accounts/acc_1111111111111111/webhook'), 404, 'NOT_FOUND');
  });

  test('a settled order: every transition of its history arrives once delivered, signed, with the status record; a failed delivery is retried with the same id', { timeout: 120_000 }, async () => {
    const acct = await t.createAccount();
    const quiet = await t.createAccount(); // no webhook: no events
    const { secret } = expectOk(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
    registerSecret(secret);
    receiver.received.length = 0;
    const counted = await deliveriesByOutcome(t.opsUrl);
    assert.deepEqual(Object.keys(counted).sort(), ['delivered', 'dropped', 'refused', 'rejected', 'unreachable'], 'every outcome is served from the start');
    receiver.fail(1); // the first delivery fails: it must come again
    const [done] = await Promise.all([settledOrder(acct), settledOrder(quiet)]);
    const statuses = done.history.map((h: { status: string }) => h.status);
    assert.deepEqual(statuses.slice(0, 1), ['awaiting_deposit']);
    assert.equal(statuses.at(-1), 'completed');

    // Delivered: one 2xx per history entry (the failed attempt's retry comes after 2 s of backoff).
    const delivered = () => receiver.received.filter((r) => r.answered === 204);
    for (let i = 0; delivered().length < statuses.length; i++) {
      assert.ok(i < 200, `only ${delivered().length} of ${statuses.length} events delivered`);
      await sleep(100);
    }
    // Nothing more will come: every event of the order is marked delivered (the receiver records a request
    // before it answers, and the mark follows the answer), none awaits a retry; then nothing more arrived.
    const marks = await pollUntil(async () => {
      const { rows } = await t.db.query<{ n: number; delivered: number }>(
        'SELECT count(*)::int AS n, count(delivered_at)::int AS delivered FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1)',
        [done.trackingId],
      );
      return rows[0]!.delivered === statuses.length ? rows[0]! : null;
    }, { timeoutMs: 10_000, what: 'every event marked delivered' });
    assert.deepEqual(marks, { n: statuses.length, delivered: statuses.length });
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
      assert.ok(done.history.some((h: { status: string; at: string }) => h.status === e.data.status && h.at === e.createdAt), `${e.data.status} at ${e.createdAt} is in the history`);
      assert.equal(e.data.order.trackingId, done.trackingId);
      // The record rides as it stood right after this transition, even on a retry sent after the order moved on.
      assert.equal(e.data.order.status, e.data.status);
      assert.equal(e.data.order.final, e.data.status === 'completed');
      assert.equal(e.data.order.updatedAt, e.createdAt);
      assert.deepEqual(e.data.order.history, done.history.slice(0, Number(e.data.sequence)));
      assert.deepEqual(e.data.order.payouts, e.data.status === 'completed' ? done.payouts : []);
      assert.equal(e.data.order.deposit === null, e.data.status === 'awaiting_deposit');
    }
    // The failed attempt was the same event as one delivered later.
    const failed = receiver.received.filter((r) => r.answered === 500);
    assert.equal(failed.length, 1);
    assert.ok(events.some(({ e }) => e.id === JSON.parse(failed[0]!.body).id), 'the failed event was delivered on retry, under the same id');
    // /metrics counted them: one rejected (the 500), one delivered per event (other tests' accounts deliver nothing meanwhile).
    const now = await deliveriesByOutcome(t.opsUrl);
    assert.equal(now.rejected! - counted.rejected!, 1, 'the 500 counted as rejected');
    assert.equal(now.delivered! - counted.delivered!, statuses.length, 'each delivered event counted once');
    assert.equal(now.unreachable, counted.unreachable, 'nothing unreachable');
    assert.ok(receiver.received.every((r) => JSON.parse(r.body).data.trackingId === done.trackingId), 'the account without a webhook sent nothing');
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [quiet.id]);
    assert.equal(rows[0]!.n, 0);

    // Cleared: later transitions of this account are not sent.
    expectOk(await admin.request('DELETE', `/admin/v1/accounts/${acct.id}/webhook`));
    const before = receiver.received.length;
    const after = await settledOrder(acct);
    const { rows: queued } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1)', [after.trackingId]);
    assert.equal(queued[0]!.n, 0, 'no events queued after the webhook was cleared');
    assert.equal(receiver.received.length, before, 'and none sent');
  });

  test('rotation: after a new secret both sign for 24 h; test-send delivers a signed webhook.test event', async () => {
    const acct = await t.createAccount();
    const sdk = createHushClient({ baseUrl: t.url, apiKey: acct.apiKey });
    const none = await sdk.testWebhook().catch((e: unknown) => e);
    assert.ok(none instanceof HushApiError && none.code === 'NOT_FOUND', 'no webhook: nothing to test');
    const { secret: old } = expectOk(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
    const { secret: current } = expectOk(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } }));
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
      const event = verifyWebhook(r.body, r.headers as Record<string, string>, secret);
      assert.deepEqual({ id: event.id, type: event.type }, { id: sent.eventId, type: 'webhook.test' });
    }
    assert.throws(() => verifyWebhook(r.body, r.headers as Record<string, string>, 'whsec_' + Buffer.alloc(24, 7).toString('base64')), /signature/i);
    assert.throws(() => verifyWebhook(r.body.replace('webhook.test', 'webhook.tesT'), r.headers as Record<string, string>, current), /signature/i, 'a changed body fails');
    // The old secret stops signing after the window.
    await t.db.query("UPDATE accounts SET webhook_previous_secrets = (SELECT coalesce(jsonb_agg(jsonb_set(e, '{until}', to_jsonb(now() - interval '1 second'))), '[]'::jsonb) FROM jsonb_array_elements(webhook_previous_secrets) e) WHERE id = $1", [acct.id]);
    receiver.received.length = 0;
    assert.equal((await sdk.testWebhook()).delivered, true);
    assert.equal(String(receiver.received[0]!.headers['webhook-signature']).split(' ').length, 1);
    assert.throws(() => verifyWebhook(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>, old));
    // A receiver's error is `failed`, nothing more: no status code, body or error text comes back.
    receiver.fail(1);
    const failed = expectOk(await acct.client.request('POST', '/transfer/v1/webhooks/test', { body: {} }));
    assert.deepEqual(Object.keys(failed).sort(), ['delivered', 'eventId', 'outcome', 'success']);
    assert.deepEqual({ outcome: failed.outcome, delivered: failed.delivered }, { outcome: 'failed', delivered: false });
  });
});
