/**
 * Issue 43, found by attack: one partner's slow webhook receiver must not delay another partner's events.
 * A receiver that never answers (each attempt times out after 5 s) with a backlog of 30 events, and another
 * account's event created after them: it arrives within 2 s, and the slow receiver never has more than its
 * share of deliveries in flight. (Before: the dispatcher claimed the oldest 16 events of every account and
 * each pass waited for its slowest delivery, so the other account waited 10 s and more.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { address, expectOk, orderRequest, quoteRequest, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';

describe('webhook deliveries are fair per account', () => {
  let hush: TestHush;
  let slow: TestAccount;
  let fast: TestAccount;
  let server: Server;
  let url = '';
  let slowInFlight = 0;
  let slowMaxInFlight = 0;
  let slowSeen = 0;
  const fastArrivals = new Map<string, number>();

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/slow') {
          // Never answers: Hush gives up on the attempt after its 5 s timeout.
          slowSeen++;
          slowInFlight++;
          slowMaxInFlight = Math.max(slowMaxInFlight, slowInFlight);
          res.on('close', () => void slowInFlight--);
          return;
        }
        const event = JSON.parse(body) as { data?: { trackingId?: string } };
        if (event.data?.trackingId) fastArrivals.set(event.data.trackingId, Date.now());
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    hush = await startTestHush({ admin: true });
    [slow, fast] = [await hush.createAccount(), await hush.createAccount()];
    const admin = hush.ops.withKey(hush.adminToken!);
    expectOk(await admin.request('PUT', `/admin/v1/accounts/${slow.id}/webhook`, { body: { url: `${url}/slow` } }));
    expectOk(await admin.request('PUT', `/admin/v1/accounts/${fast.id}/webhook`, { body: { url: `${url}/fast` } }));
  });
  after(async () => {
    await hush?.close();
    server?.closeAllConnections();
    server?.close();
  });

  const order = async (acct: TestAccount) => {
    const req = quoteRequest(await address(), await address());
    const quote = expectOk(await acct.client.quote(req)).quote;
    return (expectOk(await acct.client.order(orderRequest(quote, req))) as unknown as { order: { trackingId: string } }).order.trackingId;
  };

  test("a slow receiver's backlog of 30 events: another account's event arrives within 2 s", async () => {
    for (let i = 0; i < 30; i++) await order(slow);
    // The slow receiver is busy with its backlog before the other account's event exists.
    await pollUntil(async () => slowSeen >= 2, { timeoutMs: 10_000, what: 'the slow receiver busy' });
    const createdAt = Date.now();
    const trackingId = await order(fast);
    await pollUntil(async () => fastArrivals.has(trackingId), { timeoutMs: 15_000, intervalMs: 20, what: "the other account's event" });
    const waitedMs = fastArrivals.get(trackingId)! - createdAt;
    assert.ok(waitedMs < 2_000, `the other account's event arrived after ${waitedMs} ms`);
    // Its share, never the whole dispatcher: at most 2 × PER_ACCOUNT − 1 attempts at once.
    assert.ok(slowMaxInFlight <= 3, `the slow receiver had ${slowMaxInFlight} deliveries in flight at once`);
  });
});
