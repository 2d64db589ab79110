/**
 * A key's rate budget is per key and kind, not per route (docs/spec.md §7). The four write routes (order,
 * refresh, deposit hint, webhook test) draw on one `order` bucket: 15 concurrent requests to each from one key
 * pass at most that bucket's burst, the rest are 429 RATE_LIMITED with Retry-After and the bucket's RateLimit-*
 * headers; another key's bucket is untouched. A simulated Hush (test/support/sim-hush.ts): the bucket runs on
 * its clock, so what refilled while the burst was answered is known exactly.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { after, before, test } from 'node:test';
import { expectError, expectOk } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { startApiSim, together } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;

before(async () => {
  h = await startApiSim({ seed: 35 });
});
after(() => closeSim(h));

/** 15 concurrent requests to each write route, all at once. */
function writeBurst(client: HushClient, trackingId: string, recipient: string) {
  const each = Array.from({ length: 15 });
  return together(h, [
    ...each.map(() => () => client.post('/transfer/v1/order', { quote: {}, senderAddress: recipient, recipientAddress: recipient })),
    ...each.map(() => () => client.post(`/transfer/v1/order/${trackingId}/refresh`)),
    ...each.map(() => () => client.post('/transfer/v1/deposit', { trackingId, signature: bs58.encode(randomBytes(64)) })),
    ...each.map(() => () => client.post('/transfer/v1/webhooks/test')),
  ]);
}

test('a cross-route burst from one key passes at most its order burst; the rest are 429 with Retry-After; another key is unaffected', async (ctx) => {
  // order 5/s → a bucket of 10; the other kinds stay out of the way.
  const limits = { quote: 1_000, order: 5, status: 1_000, tokens: 1_000 };
  const a = await h.createAccount({ rateLimits: limits });
  const b = await h.createAccount({ rateLimits: limits });
  const recipient = h.address();
  // A well-formed id of no order: the requests that pass the limiter are answered (404, 400), none is free.
  const trackingId = 'trk_1111111111111111111111';

  // Both keys authenticated (and cached) first, through another kind's bucket.
  for (const c of [a.client, b.client]) assert.equal((await c.tokens()).status, 200);

  const burst = await writeBurst(a.client, trackingId, recipient);
  // The bucket refills at 5/s: what came back while the burst was under way (simulated time) may pass too.
  const refilled = Math.floor((5 * burst.ms) / 1000);
  ctx.diagnostic(`${burst.passed} of 60 passed in ${burst.ms} simulated ms`);
  const passed = burst.all.filter((r) => r.status !== 429);
  const refused = burst.all.filter((r) => r.status === 429);
  assert.ok(passed.length <= 10 + refilled, `${passed.length} of 60 passed an order budget of 10 (+${refilled} refilled): ${JSON.stringify(passed.map((r) => r.status))}`);
  assert.ok(passed.length >= 10, `only ${passed.length} passed: the bucket holds 10`);
  assert.equal(refused.length, 60 - passed.length);
  for (const r of refused) {
    expectError(r, 429, 'RATE_LIMITED');
    assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After on every 429');
    assert.equal(r.headers.get('ratelimit-limit'), '10', 'the headers describe the order bucket that refused it');
    assert.equal(r.headers.get('ratelimit-remaining'), '0');
  }
  for (const r of passed) assert.equal(r.headers.get('ratelimit-limit'), '10');
  // The other kinds are buckets of their own: the key can still poll status.
  assert.notEqual((await a.client.get(`/transfer/v1/status/${trackingId}`)).status, 429);

  // Another key: a full bucket of its own.
  const other = await b.client.post(`/transfer/v1/order/${trackingId}/refresh`);
  expectError(other, 404, 'NOT_FOUND');
  assert.equal(other.headers.get('ratelimit-remaining'), '9');
  expectOk(await b.client.tokens());
});
