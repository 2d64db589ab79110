/**
 * The codes that need a special configuration, against a real Hush with 1 s quotes, 1 s orders and low
 * rate limits (HUSH_RATE_LIMITS), and finally with its chain stopped:
 * QUOTE_EXPIRED, ORDER_EXPIRED, RATE_LIMITED (+ Retry-After and RateLimit-* headers), CHAIN_UNAVAILABLE,
 * /readyz failing, and the admin API being off without HUSH_ADMIN_TOKEN.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  HushClient,
  PREFIX,
  address,
  assertTokenBucket,
  expectError,
  expectOk,
  orderCount,
  orderRequest,
  probeTokenBucket,
  quoteRequest,
  randomSignature,
  sleep,
  startTestHush,
  type ApiResponse,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';

const SLOT_MS = 50;
let t: TestHush;
let acct: TestAccount;

before(async () => {
  t = await startTestHush({
    env: { LOCALNET_SLOT_MS: String(SLOT_MS), HUSH_QUOTE_TTL_S: '1', HUSH_ORDER_TTL_S: '1', HUSH_RATE_LIMITS: 'quote=2,order=2,status=2,tokens=2' },
  });
  acct = await t.createAccount(); // its own high per-account limits
});
after(async () => {
  await t?.close();
});

/** Quote then order at once; with 1 s quotes a very slow machine may need a second try. */
async function quoteAndOrder(client = acct.client, idempotencyKey?: string) {
  for (let attempt = 1; ; attempt++) {
    const req = quoteRequest(await address(), await address());
    const q = expectOk(await client.quote(req)).quote;
    const r = await client.order(orderRequest(q, req), idempotencyKey);
    if (r.status === 410 && r.body.error.code === 'QUOTE_EXPIRED' && attempt < 3) continue;
    return { req, q, o: expectOk(r).order, body: r.body };
  }
}

describe('expiry', () => {
  test('QUOTE_EXPIRED (410) once expiresAt has passed; nothing is created', async () => {
    const req = quoteRequest(await address(), await address());
    const q = expectOk(await acct.client.quote(req)).quote;
    assert.equal(Date.parse(q.expiresAt) - Date.parse(q.issuedAt), 1000, 'expiresAt − issuedAt = HUSH_QUOTE_TTL_S');
    const before = await orderCount(t.db);
    await sleep(Math.max(0, Date.parse(q.expiresAt) - Date.now()) + 30);
    const e = expectError(await acct.client.order(orderRequest(q, req)), 410, 'QUOTE_EXPIRED');
    assert.deepEqual(e.details, { expiresAt: q.expiresAt });
    // Same answer with a key, and again later: an expired quote never makes an order.
    expectError(await acct.client.order(orderRequest(q, req), 'expired-quote-key'), 410, 'QUOTE_EXPIRED');
    assert.equal(await orderCount(t.db), before);
    // A quote used in time still works on this server.
    await quoteAndOrder();
  });

  test('a retry of an order created in time replays it after its quote has expired (with and without a key)', async () => {
    const keyless = await quoteAndOrder();
    const withKey = { ...(await quoteAndOrder(acct.client, 'late-retry-key')), key: 'late-retry-key' };
    const latest = Math.max(...[keyless.q, withKey.q].map((q) => Date.parse(q.expiresAt)));
    await sleep(Math.max(0, latest - Date.now()) + 30);
    const before = await orderCount(t.db);
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
    assert.equal(await orderCount(t.db), before);
  });

  test('ORDER_EXPIRED (410) on refresh when a new transaction could outlive expiration; no transaction outlives it', async (ctx) => {
    const { o } = await quoteAndOrder();
    const expiration = Date.parse(o.expiration);
    const st = expectOk(await acct.client.status(o.trackingId)).order;
    // With HUSH_ORDER_TTL_S=1 the deadline is stretched to cover the issued transaction's life.
    assert.ok(expiration - Date.parse(st.createdAt) >= 1000);
    const issued: { at: number; slot: bigint; expiresAtSlot: number }[] = [];
    const record = async (order: { blockhashExpiresAtSlot: number }) =>
      issued.push({ at: Date.now(), slot: await t.rpc.getSlot({ commitment: 'processed' }).send(), expiresAtSlot: order.blockhashExpiresAtSlot });
    await record(o);
    let err: ReturnType<typeof expectError> | undefined;
    const deadline = Date.now() + 20_000;
    while (!err) {
      assert.ok(Date.now() < deadline, 'refresh never answered ORDER_EXPIRED');
      const r = await acct.client.refresh(o.trackingId);
      if (r.status === 200) {
        assert.equal(r.body.order.expiration, o.expiration, 'refresh never moves the deadline');
        await record(r.body.order);
        await sleep(250);
      } else {
        err = expectError(r, 410, 'ORDER_EXPIRED');
      }
    }
    assert.deepEqual(err.details, { expiration: o.expiration });
    const refusedAt = Date.now();
    ctx.diagnostic(`issued ${issued.length} transactions; refused ${refusedAt - expiration} ms relative to the deadline; expiresAtSlots ${[...new Set(issued.map((i) => i.expiresAtSlot))].join(',')}`);
    assert.ok(refusedAt < expiration + 1000, 'refused while still before (or just at) the deadline: "too close", not only "past"');
    // Every transaction handed out dies (nominal slot time) before the deadline.
    for (const i of issued) {
      const deathMs = i.at + Number(BigInt(i.expiresAtSlot) - i.slot) * SLOT_MS;
      assert.ok(deathMs <= expiration + 250, `a transaction issued at ${new Date(i.at).toISOString()} lives until ~${new Date(deathMs).toISOString()}, past ${o.expiration}`);
    }
    // Past the deadline it stays expired: before and after the worker marks it `expired` (final).
    await sleep(Math.max(0, expiration - Date.now()) + 50);
    expectError(await acct.client.refresh(o.trackingId), 410, 'ORDER_EXPIRED');
    const until = Date.now() + 15_000;
    let now = expectOk(await acct.client.status(o.trackingId)).order;
    while (now.status !== 'expired') {
      assert.equal(now.status, 'awaiting_deposit');
      assert.ok(Date.now() < until, 'the worker never expired the order');
      await sleep(200);
      now = expectOk(await acct.client.status(o.trackingId)).order;
    }
    assert.equal(now.final, true);
    assert.deepEqual(expectError(await acct.client.refresh(o.trackingId), 410, 'ORDER_EXPIRED').details, { expiration: o.expiration });
  });
});

describe('rate limits (HUSH_RATE_LIMITS=…=2 → a bucket of 4 per key, refilled at 2/s)', () => {
  const limitHeaders = (r: ApiResponse) => ({
    limit: r.headers.get('ratelimit-limit'),
    remaining: r.headers.get('ratelimit-remaining'),
    reset: r.headers.get('ratelimit-reset'),
  });

  test('RateLimit-* headers on every partner route, errors included', async () => {
    const a = await t.createAccount({ rateLimits: null });
    const { q, req } = await (async () => {
      const req = quoteRequest(await address(), await address());
      return { req, q: expectOk(await a.client.quote(req)).quote };
    })();
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
      const h = limitHeaders(r);
      assert.equal(h.limit, '4', `${r.status} ${r.text.slice(0, 80)}: RateLimit-Limit`);
      assert.match(h.remaining ?? '', /^\d+$/);
      assert.match(h.reset ?? '', /^\d+$/);
    }
  });

  test('RATE_LIMITED (429) with Retry-After once a key exhausts its window; other keys and routes are unaffected; it recovers', async () => {
    const a = await t.createAccount({ rateLimits: null });
    const b = await t.createAccount({ rateLimits: null });
    // A burst of 6 at once: 4 pass on the new key's tokens (remaining 3, 2, 1, 0) and 2 are refused. The
    // bucket refills one token per 500 ms while the burst is answered: on a loaded machine the burst can take
    // longer than that, and each refill lets one more through (all 6 passed in 1.7 s on one CI run). So bursts
    // follow until one is refused, the first held to the bucket's law and every one to its refills.
    let refused: ApiResponse[] = [];
    for (let round = 0; round < 5 && refused.length === 0; round++) {
      const started = Date.now();
      const burst = await Promise.all(Array.from({ length: 6 }, () => a.client.tokens()));
      const refills = Math.floor((Date.now() - started) / 500);
      const passed = burst.filter((r) => r.status === 200);
      refused = burst.filter((r) => r.status === 429);
      const statuses = `round ${round}: statuses ${burst.map((r) => r.status).join(',')} in ${Date.now() - started} ms`;
      assert.equal(refused.length, 6 - passed.length, statuses);
      if (round === 0) {
        assert.ok(passed.length >= 4 && passed.length <= 4 + refills, statuses);
        if (passed.length === 4) assert.deepEqual(passed.map((r) => r.headers.get('ratelimit-remaining')).sort(), ['0', '1', '2', '3'], 'remaining counts down within the window');
      }
    }
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
      const head = await fetch(`${t.url}${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${a.apiKey}` } });
      assert.equal(head.status, 404, `HEAD ${path}`);
    }
    // Another key, and another kind of request of the same key, have their own budget.
    expectOk(await b.client.tokens());
    expectOk(await a.client.quote(quoteRequest(await address(), await address())));
    // Unauthenticated requests are refused before they can consume anyone's budget.
    expectError(await t.anon.tokens(), 401, 'UNAUTHORIZED');
    // After Retry-After the key works again.
    await sleep(Number(retryAfter) * 1000 + 100);
    expectOk(await a.client.tokens());
  });

  test('a token bucket (docs/spec.md §7): once the burst is spent, one request per 1/rate, neither starved nor bunched', async () => {
    const a = await t.createAccount({ rateLimits: null });
    assertTokenBucket(await probeTokenBucket([a.client]));
  });

  test('the per-account override in accounts.rate_limits replaces the server default', async () => {
    const a = await t.createAccount({ rateLimits: { tokens: 1 } });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await a.client.tokens()).status);
    assert.deepEqual(codes, [200, 200, 429]);
  });
});

describe('configuration-dependent routes', () => {
  test('without HUSH_ADMIN_TOKEN the admin API does not exist (404), on the ops listener as on the partner port', async () => {
    for (const base of [t.opsUrl, t.url]) {
      for (const key of [null, 'anything', acct.apiKey]) {
        expectError(await new HushClient(base, key).post('/admin/v1/accounts', { name: 'x' }), 404, 'NOT_FOUND');
        expectError(await new HushClient(base, key).get('/admin/v1/reconcile'), 404, 'NOT_FOUND');
      }
    }
  });
});

describe('chain outage (runs last: stops the embedded chain)', () => {
  test('CHAIN_UNAVAILABLE (503 + Retry-After) on the deposit hint; /readyz 503; /healthz and quotes (no chain read) still 200', async () => {
    const { o } = await quoteAndOrder();
    await t.hush.localnet!.close();
    const h = await t.ops.get('/healthz');
    assert.equal(h.status, 200);
    // A quote reads nothing on the chain (one flat network fee, docs/spec.md §9): the inventory's last reading
    // answers it until that reading is too old (rpc-timeout.test.ts).
    const q = await acct.client.quote({ ...quoteRequest(await address(), await address()), sourceAssetId: 'usdc', destinationAssetId: 'usdc', amount: '5000000' });
    expectOk(q);
    const d = await acct.client.deposit({ trackingId: o.trackingId, signature: randomSignature() });
    expectError(d, 503, 'CHAIN_UNAVAILABLE');
    assert.match(d.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    // Nothing that does not need the chain is affected.
    expectOk(await acct.client.status(o.trackingId));
    expectOk(await acct.client.tokens());
    expectError(await acct.client.get(`${PREFIX}/nope`), 404, 'NOT_FOUND');
    // /readyz reads the chain client's background refresh (no chain call per probe): the outage shows
    // within one refresh period (5 s) plus one RPC timeout (docs/spec.md §4).
    const r = await pollUntil(async () => {
      const x = await t.ops.get('/readyz');
      return x.status === 503 ? x : null;
    }, { what: '/readyz 503 once the chain is gone', timeoutMs: 5_000 + t.hush.config.rpcTimeoutMs + 2_000, intervalMs: 100 });
    const re = expectError(r, 503, 'SERVICE_UNAVAILABLE');
    assert.deepEqual({ ...re.details, partnerPort: undefined }, { store: 'ok', chain: 'unreachable', screening: 'off', partnerPort: undefined });
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  });
});
