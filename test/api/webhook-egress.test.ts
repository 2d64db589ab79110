/**
 * Webhook egress end to end (issue 35 finding 7; docs/spec.md §3, Webhooks): a listening Hush in production
 * mode (its chain named by SOLANA_RPC_URL, here a local chain of the test's own) and a receiver on
 * 127.0.0.1 that counts every TCP connection made to it.
 *
 * A webhook URL that points at this machine (http or https, a literal or `localhost`), at a private address
 * or at the cloud metadata address is refused when it is set; one that got into the store anyway (a name
 * repointed since, a URL set before these rules) is refused when delivering: the test-send endpoint
 * answers `refused` with nothing of a receiver's answer, and the dispatcher's real order event is
 * refused too. No connection reaches the receiver.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { isHushError } from '../../src/domain/errors.ts';
import { AdminService } from '../../src/admin/admin-service.ts';
import { setWebhook } from '../../src/store/webhooks-store.ts';
import { webhookEgressFor } from '../../src/webhooks/webhook-egress.ts';
import { expectOk, startTestHush, type TestHush } from '../support/hush-server.ts';
import { pollUntil, startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { chainAt, newWallet, placeOrder, SOL } from '../support/settlement.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

describe('webhook egress: a production Hush reaches no internal address', () => {
  let chain: TestLocalnet;
  let t: TestHush;
  let receiver: Server;
  let port: number;
  let connections = 0;

  before(async () => {
    chain = await startTestLocalnet();
    t = await startTestHush({ env: { SOLANA_RPC_URL: chain.url, LOCALNET_SLOT_MS: '50' } });
    // Plain TCP: any connection counts, TLS or not, whatever it would have said.
    receiver = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    port = (receiver.address() as { port: number }).port;
  });
  after(async () => {
    await t?.close();
    await chain?.close();
    await new Promise((ok) => receiver?.close(ok));
  });

  test('set time: loopback over http or https, localhost, private and metadata URLs are WEBHOOK_URL_REFUSED', async () => {
    const acct = await t.createAccount();
    const admin = new AdminService(t.db, { clock: systemClock, random: systemRandom, webhookEgress: webhookEgressFor(t.hush.config) });
    for (const url of [
      `http://127.0.0.1:${port}/hooks`,
      `https://127.0.0.1:${port}/hooks`,
      `https://localhost:${port}/hooks`,
      `https://[::ffff:127.0.0.1]:${port}/hooks`,
      'https://10.20.30.40/hooks',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      await assert.rejects(admin.setWebhook(acct.id, url), (e: unknown) => isHushError(e, 'WEBHOOK_URL_REFUSED') && e.details.reason === 'not_public' && /not allowed/.test(e.message), url);
    }
    const { rows } = await t.db.query<{ webhook_url: string | null }>('SELECT webhook_url FROM accounts WHERE id = $1', [acct.id]);
    assert.equal(rows[0]!.webhook_url, null, 'nothing was set');
  });

  test('the test-send endpoint answers refused, and only the outcome, for loopback, localhost and metadata URLs', async () => {
    const acct = await t.createAccount();
    for (const url of [`http://127.0.0.1:${port}/hooks`, `https://localhost:${port}/hooks`, `https://[::1]:${port}/hooks`, 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.1/hooks']) {
      // Straight into the store: as if set before these rules, or a name repointed since.
      await setWebhook(t.db, acct.id, url, SECRET);
      const body = expectOk(await acct.client.request('POST', '/transfer/v1/webhooks/test', { body: {} }));
      assert.deepEqual(Object.keys(body).sort(), ['delivered', 'eventId', 'outcome', 'success'], `${url}: no status code, body or error text`);
      assert.deepEqual({ outcome: body.outcome, delivered: body.delivered }, { outcome: 'refused', delivered: false }, url);
    }
    assert.equal(connections, 0, 'no connection reached the loopback receiver');
  });

  test("the dispatcher refuses an order event's delivery to localhost: retried later, never connected", async () => {
    const acct = await t.createAccount();
    await setWebhook(t.db, acct.id, `https://localhost:${port}/hooks`, SECRET);
    const sender = await newWallet(chainAt(t.chainUrl), { sol: 2n * SOL });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount: '50000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient });
    const event = await pollUntil(
      async () => {
        const { rows } = await t.db.query<{ attempts: number; last_error: string | null; delivered_at: Date | null }>(
          'SELECT attempts, last_error, delivered_at FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1) AND attempts > 0 ORDER BY id LIMIT 1',
          [placed.trackingId],
        );
        return rows[0] && rows[0].last_error !== null ? rows[0] : null;
      },
      { timeoutMs: 15_000, what: 'a delivery attempt of the order event' },
    );
    assert.equal(event.delivered_at, null);
    assert.match(event.last_error!, /refused/);
    assert.doesNotMatch(event.last_error!, /127\.0\.0\.1|::1/, 'the stored error names no address');
    assert.equal(connections, 0, 'no connection reached the loopback receiver');
  });
});
