/**
 * The codes that need a special configuration, on a simulated Hush (test/support/sim-hush.ts) with 1 s quotes,
 * 1 s orders, low rate limits (HUSH_RATE_LIMITS) and no admin token, and finally with its chain stopped:
 * QUOTE_EXPIRED, ORDER_EXPIRED, RATE_LIMITED (+ Retry-After and RateLimit-* headers), CHAIN_UNAVAILABLE,
 * /readyz failing, and the admin API being off without HUSH_ADMIN_TOKEN. Expiry and refills are simulated
 * time: a wait is `h.advance`, and a burst answered in no simulated time meets the bucket's law exactly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SIM_SLOT_MS } from '../../sim/world.ts';
import { expectError, expectOk, type ApiResponse } from '../support/api-responses.ts';
import { assertTokenBucket, PREFIX } from '../support/hush-client.ts';
import { limitHeaders, orderRequest, probeSimTokenBucket, quoteRequest, simOpsClient, simOrderCount, startApiSim, stopChain, together } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';

let h: SimHush;
let acct: SimAccount;

before(async () => {
  h = await startApiSim({
    seed: 12,
    env: { HUSH_QUOTE_TTL_S: '1', HUSH_ORDER_TTL_S: '1', HUSH_RATE_LIMITS: 'quote=2,order=2,status=2,tokens=2', HUSH_ADMIN_TOKEN: '' },
  });
  acct = await h.createAccount(); // its own high per-account limits
});
after(() => closeSim(h));

const newRequest = () => quoteRequest(h.address(), h.address());

/** Quote then order at once. */
async function quoteAndOrder(client = acct.client, idempotencyKey?: string) {
  const req = newRequest();
  const q = expectOk(await client.quote(req)).quote;
  const r = await client.order(orderRequest(q, req), idempotencyKey);
  return { req, q, o: expectOk(r).order, body: r.body };
}

describe('expiry', () => {
  test('QUOTE_EXPIRED (410) once expiresAt has passed; nothing is created', async () => {
    const req = newRequest();
    const q = expectOk(await acct.client.quote(req)).quote;
    assert.equal(Date.parse(q.expiresAt) - Date.parse(q.issuedAt), 1000, 'expiresAt − issuedAt = HUSH_QUOTE_TTL_S');
    const before = await simOrderCount(h);
    await h.advance(Math.max(0, Date.parse(q.expiresAt) - h.now()) + 30);
    const e = expectError(await acct.client.order(orderRequest(q, req)), 410, 'QUOTE_EXPIRED');
    assert.deepEqual(e.details, { expiresAt: q.expiresAt });
    // Same answer with a key, and again later: an expired quote never makes an order.
    expectError(await acct.client.order(orderRequest(q, req), 'expired-quote-key'), 410, 'QUOTE_EXPIRED');
    assert.equal(await simOrderCount(h), before);
    // A quote used in time still works on this server.
    await quoteAndOrder();
  });

  test('a retry of an order created in time replays it after its quote has expired (with and without a key)', async () => {
    const keyless = await quoteAndOrder();
    const withKey = { ...(await quoteAndOrder(acct.client, 'late-retry-key')), key: 'late-retry-key' };
    const latest = Math.max(...[keyless.q, withKey.q].map((q) => Date.parse(q.expiresAt)));
    await h.advance(Math.max(0, latest - h.now()) + 30);
    const before = await simOrderCount(h);
    const again = await acct.client.order(orderRequest(withKey.q, withKey.req), withKey.key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, withKey.body);
    const keylessAgain = await acct.client.order(orderRequest(keyless.q, keyless.req));
    assert.equal(keylessAgain.status, 200, JSON.stringify(keylessAgain.body));
    assert.equal(keylessAgain.headers.get('idempotent-replayed'), 'true');
    assert.equal(keylessAgain.body.order.trackingId, keyless.o.trackingId);
    // A key never used with that quote still gets QUOTE_EXPIRED, and nothing is created.
    expectError(await acct.client.order(orderRequest(withKey.q, withKey.req), 'another-late-key'), 410, 'QUOTE_EXPIRED');
    assert.equal(await simOrderCount(h), before);
  });

  test('ORDER_EXPIRED (410) on refresh when a new transaction could outlive expiration; no transaction outlives it', async (ctx) => {
    const { o } = await quoteAndOrder();
    const expiration = Date.parse(o.expiration);
    const st = expectOk(await acct.client.status(o.trackingId)).order;
    // With HUSH_ORDER_TTL_S=1 the deadline is stretched to cover the issued transaction's life.
    assert.ok(expiration - Date.parse(st.createdAt) >= 1000);
    const issued: { at: number; slot: bigint; expiresAtSlot: number }[] = [];
    const record = async (order: { blockhashExpiresAtSlot: number }) =>
      issued.push({ at: h.now(), slot: await h.drive(h.rpc.getSlot({ commitment: 'processed' }).send()), expiresAtSlot: order.blockhashExpiresAtSlot });
    await record(o);
    let err: ReturnType<typeof expectError> | undefined;
    const deadline = h.now() + 120_000;
    while (!err) {
      assert.ok(h.now() < deadline, 'refresh never answered ORDER_EXPIRED');
      const r = await acct.client.refresh(o.trackingId);
      if (r.status === 200) {
        assert.equal(r.body.order.expiration, o.expiration, 'refresh never moves the deadline');
        await record(r.body.order);
        await h.advance(250);
      } else {
        err = expectError(r, 410, 'ORDER_EXPIRED');
      }
    }
    assert.deepEqual(err.details, { expiration: o.expiration });
    const refusedAt = h.now();
    ctx.diagnostic(`issued ${issued.length} transactions; refused ${refusedAt - expiration} ms relative to the deadline; expiresAtSlots ${[...new Set(issued.map((i) => i.expiresAtSlot))].join(',')}`);
    assert.ok(refusedAt < expiration + 1000, 'refused while still before (or just at) the deadline: "too close", not only "past"');
    // Every transaction handed out dies (nominal slot time) before the deadline.
    for (const i of issued) {
      const deathMs = i.at + Number(BigInt(i.expiresAtSlot) - i.slot) * SIM_SLOT_MS;
      assert.ok(deathMs <= expiration + 250, `a transaction issued at ${new Date(i.at).toISOString()} lives until ~${new Date(deathMs).toISOString()}, past ${o.expiration}`);
    }
    // Past the deadline it stays expired: before and after the worker marks it `expired` (final).
    await h.advance(Math.max(0, expiration - h.now()) + 50);
    expectError(await acct.client.refresh(o.trackingId), 410, 'ORDER_EXPIRED');
    const now = await h.until('the worker to expire the order', async () => {
      const rec = expectOk(await acct.client.status(o.trackingId)).order;
      if (rec.status !== 'expired') assert.equal(rec.status, 'awaiting_deposit');
      return rec.status === 'expired' ? rec : null;
    }, 15_000, 200);
    assert.equal(now.final, true);
    assert.deepEqual(expectError(await acct.client.refresh(o.trackingId), 410, 'ORDER_EXPIRED').details, { expiration: o.expiration });
  });
});

describe('rate limits (HUSH_RATE_LIMITS=…=2 → a bucket of 4 per key, refilled at 2/s)', () => {
  test('RateLimit-* headers on every partner route, errors included', async () => {
    const a = await h.createAccount({ rateLimits: null });
    const req = newRequest();
    const q = expectOk(await a.client.quote(req)).quote;
    const responses = [
      await a.client.tokens(),
      await a.client.quote({ bad: 1 }),
      await a.client.order(orderRequest({ ...q, amountOut: '1' }, req)),
      await a.client.status('trk_1111111111111111111111'),
      await a.client.refresh('trk_1111111111111111111111'),
      await a.client.deposit({ trackingId: 'trk_1111111111111111111111', signature: 'nope' }),
      // Failures before validation count and carry the headers too.
      await a.client.request('POST', `${PREFIX}/quote`, { raw: '{"amount":' }),
      await a.client.request('POST', `${PREFIX}/deposit`, { raw: '{}', headers: { 'content-type': 'text/plain' } }),
    ];
    for (const r of responses) {
      const l = limitHeaders(r);
      assert.equal(l.limit, '4', `${r.status} ${r.text.slice(0, 80)}: RateLimit-Limit`);
      assert.match(l.remaining ?? '', /^\d+$/);
      assert.match(l.reset ?? '', /^\d+$/);
    }
  });

  test('RATE_LIMITED (429) with Retry-After once a key exhausts its window; other keys and routes are unaffected; it recovers', async () => {
    const a = await h.createAccount({ rateLimits: null });
    const b = await h.createAccount({ rateLimits: null });
    // A burst of 6 at once: 4 pass on the new key's tokens (remaining 3, 2, 1, 0) and 2 are refused, plus one
    // per token refilled while the burst was answered (one per 500 simulated ms).
    const burst = await together(h, Array.from({ length: 6 }, () => () => a.client.tokens()));
    const refills = Math.floor(burst.ms / 500);
    const passed = burst.all.filter((r) => r.status === 200);
    const refused = burst.all.filter((r) => r.status === 429);
    const statuses = `statuses ${burst.all.map((r) => r.status).join(',')} in ${burst.ms} simulated ms`;
    assert.equal(refused.length, 6 - passed.length, statuses);
    assert.ok(passed.length >= 4 && passed.length <= 4 + refills, statuses);
    if (passed.length === 4) assert.deepEqual(passed.map((r) => r.headers.get('ratelimit-remaining')).sort(), ['0', '1', '2', '3'], 'remaining counts down within the window');
    assert.ok(refused.length > 0, 'a key that keeps asking faster than its rate is refused');
    const limited: ApiResponse = refused[0]!;
    const e = expectError(limited, 429, 'RATE_LIMITED');
    assert.equal(e.details, undefined);
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^[1-9]\d*$/, `Retry-After must be whole seconds, got ${retryAfter}`);
    assert.ok(Number(retryAfter) <= 2);
    assert.equal(limited.headers.get('ratelimit-limit'), '4');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    // HEAD is no way around it: partner GET routes have no HEAD twin (it would count separately).
    for (const path of [`${PREFIX}/tokens`, `${PREFIX}/status/trk_1111111111111111111111`]) {
      assert.equal((await a.client.request('HEAD', path)).status, 404, `HEAD ${path}`);
    }
    // Another key, and another kind of request of the same key, have their own budget.
    expectOk(await b.client.tokens());
    expectOk(await a.client.quote(newRequest()));
    // Unauthenticated requests are refused before they can consume anyone's budget.
    expectError(await h.client(null).tokens(), 401, 'UNAUTHORIZED');
    // After Retry-After the key works again.
    await h.advance(Number(retryAfter) * 1000 + 100);
    expectOk(await a.client.tokens());
  });

  test('a token bucket (docs/spec.md §7): once the burst is spent, one request per 1/rate, neither starved nor bunched', async () => {
    const a = await h.createAccount({ rateLimits: null });
    assertTokenBucket(await probeSimTokenBucket(h, [a.client]));
  });

  test('the per-account override in accounts.rate_limits replaces the server default', async () => {
    const a = await h.createAccount({ rateLimits: { tokens: 1 } });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await a.client.tokens()).status);
    assert.deepEqual(codes, [200, 200, 429]);
  });
});

describe('configuration-dependent routes', () => {
  test('without HUSH_ADMIN_TOKEN the admin API does not exist (404), on the ops listener as on the partner port', async () => {
    for (const client of [(key: string | null) => simOpsClient(h, key), (key: string | null) => h.client(key)]) {
      for (const key of [null, 'anything', acct.apiKey]) {
        expectError(await client(key).post('/admin/v1/accounts', { name: 'x' }), 404, 'NOT_FOUND');
        expectError(await client(key).get('/admin/v1/reconcile'), 404, 'NOT_FOUND');
      }
    }
  });
});

describe('chain outage (runs last: stops the chain)', () => {
  test('CHAIN_UNAVAILABLE (503 + Retry-After) on the deposit hint; /readyz 503; /healthz and quotes (no chain read) still 200', async () => {
    const ops = simOpsClient(h, null);
    const { o } = await quoteAndOrder();
    stopChain(h);
    assert.equal((await ops.get('/healthz')).status, 200);
    // A quote reads nothing on the chain (one flat network fee, docs/spec.md §9): the inventory's last reading
    // answers it until that reading is too old (test/api/chain-faults.test.ts).
    expectOk(await acct.client.quote({ ...newRequest(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', amount: '5000000' }));
    const d = await acct.client.deposit({ trackingId: o.trackingId, signature: '5'.repeat(87) });
    expectError(d, 503, 'CHAIN_UNAVAILABLE');
    assert.match(d.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    // Nothing that does not need the chain is affected.
    expectOk(await acct.client.status(o.trackingId));
    expectOk(await acct.client.tokens());
    expectError(await acct.client.get(`${PREFIX}/nope`), 404, 'NOT_FOUND');
    // /readyz reads the chain client's background refresh (no chain call per probe): the outage shows
    // within one refresh period (5 s) plus one RPC timeout (docs/spec.md §4).
    const r = await h.until('/readyz 503 once the chain is gone', async () => {
      const x = await ops.get('/readyz');
      return x.status === 503 ? x : null;
    }, 5_000 + h.config.rpcTimeoutMs + 2_000, 100);
    const re = expectError(r, 503, 'SERVICE_UNAVAILABLE');
    // The simulated Hush screens its flows (a risk API of its own): it says so, and only the chain fails.
    assert.deepEqual({ ...re.details, partnerPort: undefined, feePayer: undefined }, { store: 'ok', chain: 'unreachable', settlement: 'ok', screening: 'on: http:screening.sim; on error hold', partnerPort: undefined, feePayer: undefined });
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  });
});
