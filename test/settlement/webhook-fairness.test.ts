/**
 * One partner's slow webhook receiver must not delay another partner's events (found by attack). A receiver
 * that never answers (each attempt times out after 5 s) with a backlog of 30 events, and another account's
 * event created after them: it arrives within 2 s, and the slow receiver never has more than its share of
 * deliveries in flight. (Before: the dispatcher claimed the oldest 16 events of every account and each pass
 * waited for its slowest delivery, so the other account waited 10 s and more.)
 *
 * On a simulated Hush (test/support/sim-hush.ts), its own dispatcher delivering to receivers in this process
 * (test/support/sim-webhook-network.ts): the 5 s timeouts and the 2 s are the simulated clock's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectOk } from '../support/api-responses.ts';
import { orderRequest, quoteRequest } from '../support/order-requests.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { receiveWebhooks } from '../support/sim-webhook-network.ts';

describe('webhook deliveries are fair per account', () => {
  let h: SimHush;
  let slow: SimAccount;
  let fast: SimAccount;
  let slowInFlight = 0;
  let slowMaxInFlight = 0;
  let slowSeen = 0;
  const fastArrivals = new Map<string, number>();

  before(async () => {
    h = await startSimHush({ seed: 43 });
    receiveWebhooks(h, (req, res, body) => {
      if (req.url === '/slow') {
        // Never answers: Hush gives up on the attempt after its 5 s timeout.
        slowSeen++;
        slowInFlight++;
        slowMaxInFlight = Math.max(slowMaxInFlight, slowInFlight);
        res.on('close', () => void slowInFlight--);
        return;
      }
      const event = JSON.parse(body) as { data?: { trackingId?: string } };
      if (event.data?.trackingId) fastArrivals.set(event.data.trackingId, h.now());
      res.end('ok');
    });
    [slow, fast] = [await h.createAccount(), await h.createAccount()];
    expectOk(await h.ops.request('PUT', `/admin/v1/accounts/${slow.id}/webhook`, { body: { url: 'https://receiver.test/slow' } }));
    expectOk(await h.ops.request('PUT', `/admin/v1/accounts/${fast.id}/webhook`, { body: { url: 'https://receiver.test/fast' } }));
  });
  after(() => closeSim(h));

  const order = async (acct: SimAccount) => {
    const req = quoteRequest(h.address(), h.address());
    const quote = expectOk(await acct.client.quote(req)).quote;
    return (expectOk(await acct.client.order(orderRequest(quote, req))) as unknown as { order: { trackingId: string } }).order.trackingId;
  };

  test("a slow receiver's backlog of 30 events: another account's event arrives within 2 s", async () => {
    for (let i = 0; i < 30; i++) await order(slow);
    // The slow receiver is busy with its backlog before the other account's event exists.
    await h.until('the slow receiver busy', async () => slowSeen >= 2, 10_000, 20);
    const createdAt = h.now();
    const trackingId = await order(fast);
    await h.until("the other account's event", async () => fastArrivals.has(trackingId), 15_000, 20);
    const waitedMs = fastArrivals.get(trackingId)! - createdAt;
    assert.ok(waitedMs < 2_000, `the other account's event arrived after ${waitedMs} simulated ms`);
    // Its share, never the whole dispatcher: at most 2 × PER_ACCOUNT − 1 attempts at once.
    assert.ok(slowMaxInFlight <= 3, `the slow receiver had ${slowMaxInFlight} deliveries in flight at once`);
  });
});
