/**
 * The error contract of docs/spec.md §2 and §6 over real HTTP: every code the partner API can produce on a
 * healthy server, with its exact status, the `{success:false,error:{code,message,details?,requestId}}`
 * body, and `X-Request-Id` on every response. (Expiry, rate limits and chain outage need their own
 * configuration: limits.test.ts. Idempotency codes: idempotency.test.ts.)
 *
 * This file: Access and state: bad keys, suspended accounts, unknown ids, quote mismatches, body limits, the admin API, order-time re-checks and leaks.
 *
 * HushClient additionally checks every response for leaks (key secrets, treasury seed, admin token,
 * stack frames, SQL).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { revokeApiKey } from '../../src/store/accounts-store.ts';
import {
  HushClient, PREFIX, address, expectError, expectOk, issueKey, orderCount, orderRequest, registerSecret,
  secretOf, type ApiResponse, type TestAccount, type TestHush, startErrorSuite, type ErrorSuite,
} from '../support/hush-server.ts';
import { systemRandom } from '../../src/support/random.ts';

let t: TestHush, acct: TestAccount, sender: Address, recipient: Address;
let quoteReq: ErrorSuite['quoteReq'], freshQuote: ErrorSuite['freshQuote'];
before(async () => void ({ t, acct, sender, recipient, quoteReq, freshQuote } = await startErrorSuite()));
after(async () => t?.close());

describe('UNAUTHORIZED (401) and ACCOUNT_SUSPENDED (403)', () => {
  const routes = (c: HushClient) => [
    () => c.tokens(),
    () => c.quote(quoteReq()),
    () => c.order({ quote: {}, senderAddress: sender, recipientAddress: recipient }),
    () => c.refresh('trk_1111111111111111111111'),
    () => c.status('trk_1111111111111111111111'),
    () => c.deposit({ trackingId: 'trk_1111111111111111111111', signature: 'x' }),
  ];

  test('missing, malformed, unknown, wrong-secret, revoked and expired keys: 401 with one message and WWW-Authenticate, on every route', async () => {
    const revoked = await issueKey(t.db, acct.id);
    assert.equal(await revokeApiKey(t.db, revoked.keyId), true);
    const expired = await issueKey(t.db, acct.id, new Date(Date.now() - 1000));
    const unknown = generateApiKey(systemRandom).apiKey;
    const wrongSecret = `hush_${acct.keyId}_${generateApiKey(systemRandom).apiKey.slice(-43)}`;
    const variants: [string, Record<string, string>][] = [
      ['missing', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['not bearer', { authorization: `Basic ${Buffer.from(`${acct.apiKey}:`).toString('base64')}` }],
      ['bare key', { authorization: acct.apiKey }],
      ['garbage', { authorization: 'Bearer garbage' }],
      ['truncated', { authorization: `Bearer ${acct.apiKey.slice(0, -1)}` }],
      ['extra', { authorization: `Bearer ${acct.apiKey}x` }],
      ['unknown key', { authorization: `Bearer ${unknown}` }],
      ['wrong secret', { authorization: `Bearer ${wrongSecret}` }],
      ['revoked', { authorization: `Bearer ${revoked.apiKey}` }],
      ['expired', { authorization: `Bearer ${expired.apiKey}` }],
    ];
    const messages = new Set<string>();
    for (const [name, headers] of variants) {
      const c = new HushClient(t.url, null);
      const calls = [
        () => c.tokens({ headers }),
        () => c.quote(quoteReq(), { headers }),
        () => c.order({ quote: {}, senderAddress: sender, recipientAddress: recipient }, undefined, { headers }),
        () => c.refresh('trk_1111111111111111111111', { headers }),
        () => c.status('trk_1111111111111111111111', { headers }),
        () => c.deposit({ trackingId: 'trk_1111111111111111111111', signature: 'x' }, { headers }),
        // Authentication comes before body validation: no hint about the request leaks to a stranger.
        () => c.request('POST', `${PREFIX}/quote`, { raw: '{bad json', headers }),
      ];
      for (const call of calls) {
        const res = await call();
        const e = expectError(res, 401, 'UNAUTHORIZED');
        assert.equal(e.details, undefined, name);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="hush"', name);
        messages.add(e.message);
      }
    }
    assert.equal(messages.size, 1, `one message for every failure, got ${[...messages].join(' | ')}`);
    // The valid key still works (the failures above did not lock it out).
    expectOk(await acct.client.tokens());
  });

  test('a suspended account gets 403 ACCOUNT_SUSPENDED on every route; reactivated it works again', async () => {
    const s = await t.createAccount({ status: 'suspended' });
    for (const call of routes(s.client)) expectError(await call(), 403, 'ACCOUNT_SUSPENDED');
    // Through the admin API, the change takes effect at once on this process.
    const a = await t.createAccount();
    expectOk(await a.client.tokens());
    const admin = new HushClient(t.opsUrl, t.adminToken!);
    expectOk(await admin.request('PATCH', `/admin/v1/accounts/${a.id}`, { body: { status: 'suspended' } }));
    expectError(await a.client.tokens(), 403, 'ACCOUNT_SUSPENDED');
    expectOk(await admin.request('PATCH', `/admin/v1/accounts/${a.id}`, { body: { status: 'active' } }));
    expectOk(await a.client.tokens());
  });
});

describe('NOT_FOUND and QUOTE_NOT_FOUND (404)', () => {
  test('unknown routes and methods', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/nope'],
      ['GET', `${PREFIX}/nope`],
      ['POST', `${PREFIX}/quotes`],
      ['DELETE', `${PREFIX}/quote`],
      ['GET', `${PREFIX}/quote`],
      ['GET', '/transfer/v2/tokens'],
      ['GET', `${PREFIX}/status`],
    ] as const) {
      expectError(await acct.client.request(method, path), 404, 'NOT_FOUND');
    }
    // Whatever the body of a request to a route that does not exist, the answer is 404 (not 400/413/415).
    for (const [raw, ctype] of [['', 'application/json'], ['{"a":', 'application/json'], ['x'.repeat(70_000), 'application/json'], ['hello', 'text/plain']]) {
      for (const [method, path] of [['PUT', `${PREFIX}/quote`], ['POST', `${PREFIX}/nope`], ['POST', '/nope']]) {
        expectError(await acct.client.request(method!, path!, { raw, headers: { 'content-type': ctype! } }), 404, 'NOT_FOUND');
      }
    }
  });

  test('unknown or malformed trackingId on status, refresh and deposit', async () => {
    for (const id of ['trk_1111111111111111111111', 'trk_short', 'nope', 'TRK_1111111111111111111111', 'trk_0000000000000000000000']) {
      expectError(await acct.client.status(id), 404, 'NOT_FOUND');
      expectError(await acct.client.refresh(id), 404, 'NOT_FOUND');
      expectError(await acct.client.deposit({ trackingId: id, signature: '1'.repeat(64) }), 404, 'NOT_FOUND');
    }
    // In the path, an id of any length is just not found (no 400 between the schema's and the router's limits).
    for (const length of [64, 65, 100, 101, 300]) {
      const id = `trk_${'1'.repeat(length - 4)}`;
      expectError(await acct.client.status(id), 404, 'NOT_FOUND');
      expectError(await acct.client.refresh(id), 404, 'NOT_FOUND');
    }
  });

  test('forged or another account’s quoteId → QUOTE_NOT_FOUND, a missing one → INVALID_REQUEST naming the shape; nothing is created', async () => {
    const before = await orderCount(t.db);
    const { req, quote } = await freshQuote();
    const id: string = quote.quoteId;
    const mid = Math.floor(id.length / 2);
    const flipped = id.slice(0, mid) + (id[mid] === 'A' ? 'B' : 'A') + id.slice(mid + 1);
    for (const quoteId of [flipped, `${id}A`, id.slice(0, -2), 'q_', 'q_AAAA', 'nope', '']) {
      expectError(await acct.client.order(orderRequest({ ...quote, quoteId }, req)), 404, 'QUOTE_NOT_FOUND');
    }
    // No quoteId string at all: the wrong shape, named (issue 43).
    const { quoteId: _omit, ...noId } = quote;
    for (const shape of [noId, {}, { ...quote, quoteId: 42 }, { ...quote, quoteId: null }]) {
      assert.deepEqual(expectError(await acct.client.order(orderRequest(shape, req)), 400, 'INVALID_REQUEST').details, { field: 'quote.quoteId', reason: 'missing' });
    }
    const wrapped = expectError(await acct.client.order(orderRequest({ success: true, quote }, req)), 400, 'INVALID_REQUEST');
    assert.match(wrapped.message, /send its `quote` object/);
    // Another account presenting our quote: as if it did not exist.
    const other = await t.createAccount();
    expectError(await other.client.order(orderRequest(quote, req)), 404, 'QUOTE_NOT_FOUND');
    assert.equal(await orderCount(t.db), before);
    // The genuine quote still works for its owner.
    expectOk(await acct.client.order(orderRequest(quote, req)));
  });
});

describe('QUOTE_MISMATCH (409)', () => {
  test('details.field names the first difference: changed, added, removed, nested, type change, request terms', async () => {
    const fr = acct.feeRecipients;
    const { req, quote } = await freshQuote({ feeBps: 50, feeRecipientAddress: fr[0], mode: 'exact_out' });
    const ok = orderRequest(quote, req);
    const before = await orderCount(t.db);
    const without = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([x]) => x !== k));
    const cases: [string, unknown, string][] = [
      ['changed amountOut', { ...ok, quote: { ...quote, amountOut: (BigInt(quote.amountOut) + 1n).toString() } }, 'amountOut'],
      ['changed amountIn', { ...ok, quote: { ...quote, amountIn: (BigInt(quote.amountIn) - 1n).toString() } }, 'amountIn'],
      ['changed expiresAt', { ...ok, quote: { ...quote, expiresAt: new Date(Date.parse(quote.expiresAt) + 60_000).toISOString() } }, 'expiresAt'],
      ['changed mode', { ...ok, quote: { ...quote, mode: 'exact_in' } }, 'mode'],
      ['changed destination', { ...ok, quote: { ...quote, destinationAssetId: 'usdc' } }, 'destinationAssetId'],
      ['added field', { ...ok, quote: { ...quote, bonus: '1' } }, 'bonus'],
      ['removed field', { ...ok, quote: without(quote, 'networkFee') }, 'networkFee'],
      ['removed object', { ...ok, quote: without(quote, 'feeBreakdown') }, 'feeBreakdown'],
      ['nested change', { ...ok, quote: { ...quote, feeBreakdown: { ...quote.feeBreakdown, partnerFee: '0' } } }, 'feeBreakdown.partnerFee'],
      ['nested added', { ...ok, quote: { ...quote, feeBreakdown: { ...quote.feeBreakdown, tip: '1' } } }, 'feeBreakdown.tip'],
      ['nested removed', { ...ok, quote: { ...quote, feeBreakdown: without(quote.feeBreakdown, 'serviceFee') } }, 'feeBreakdown.serviceFee'],
      ['nested type', { ...ok, quote: { ...quote, feeBreakdown: 'x' } }, 'feeBreakdown'],
      ['type change number→string', { ...ok, quote: { ...quote, duration: String(quote.duration) } }, 'duration'],
      ['type change string→number', { ...ok, quote: { ...quote, amountIn: Number(quote.amountIn) } }, 'amountIn'],
      ['sender differs', { ...ok, senderAddress: recipient }, 'senderAddress'],
      ['recipient differs', { ...ok, recipientAddress: sender }, 'recipientAddress'],
      ['feeBps differs', { ...ok, feeBps: 49 }, 'feeBps'],
      ['feeBps omitted', without(ok, 'feeBps'), 'feeBps'],
      ['fee recipient differs', { ...ok, feeRecipientAddress: fr[1] }, 'feeRecipientAddress'],
      ['fee recipient omitted', without(ok, 'feeRecipientAddress'), 'feeRecipientAddress'],
    ];
    for (const [name, body, field] of cases) {
      const e = expectError(await acct.client.order(body), 409, 'QUOTE_MISMATCH');
      assert.equal(e.details?.field, field, `${name}: got ${e.details?.field}`);
    }
    // Terms without a fee: adding one is a mismatch too.
    const plain = await freshQuote();
    const e = expectError(await acct.client.order({ ...orderRequest(plain.quote, plain.req), feeBps: 10, feeRecipientAddress: fr[0] }), 409, 'QUOTE_MISMATCH');
    assert.equal(e.details?.field, 'feeBps');
    assert.equal(await orderCount(t.db), before, 'no mismatching request created an order');
    // None of them used up the quote: the unchanged one still makes its order.
    const o = expectOk(await acct.client.order(ok)).order;
    assert.equal(o.amountOut, quote.amountOut);
  });
});

describe('PAYLOAD_TOO_LARGE (413) and UNSUPPORTED_MEDIA_TYPE (415)', () => {
  test('a body over 64 KiB is 413 on every POST route; one at the limit is parsed', async () => {
    const pad = (size: number) => {
      const base = JSON.stringify({ ...quoteReq(), pad: '' });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };
    const over = pad(64 * 1024 + 1);
    assert.equal(Buffer.byteLength(over), 65537);
    for (const path of [`${PREFIX}/quote`, `${PREFIX}/order`, `${PREFIX}/deposit`, `${PREFIX}/order/trk_1111111111111111111111/refresh`]) {
      const e = expectError(await acct.client.request('POST', path, { raw: over }), 413, 'PAYLOAD_TOO_LARGE');
      assert.deepEqual(e.details, { limitBytes: 65536 });
    }
    expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: `{"pad":"${'y'.repeat(1024 * 1024)}"}` }), 413, 'PAYLOAD_TOO_LARGE');
    // Exactly 64 KiB is within the limit: it reaches validation (the pad field is unknown).
    const atLimit = pad(64 * 1024);
    assert.equal(Buffer.byteLength(atLimit), 65536);
    assert.equal(expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: atLimit }), 400, 'INVALID_REQUEST').details?.field, 'pad');
  });

  test('a non-JSON content type is 415', async () => {
    const body = JSON.stringify(quoteReq());
    for (const ctype of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      for (const path of [`${PREFIX}/quote`, `${PREFIX}/order`, `${PREFIX}/deposit`]) {
        expectError(await acct.client.request('POST', path, { raw: body, headers: { 'content-type': ctype } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    }
    // application/json with a charset is JSON.
    expectOk(await acct.client.request('POST', `${PREFIX}/quote`, { raw: body, headers: { 'content-type': 'application/json; charset=utf-8' } }));
    // JSON is UTF-8: a body declared in another charset would be read as something else (issue 43).
    for (const charset of ['utf-16', 'UTF-16LE', '"iso-8859-1"']) {
      expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: body, headers: { 'content-type': `application/json; charset=${charset}` } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // No route, no judgement of the body: a path that does not exist is 404 whatever its charset (found by the fuzzer).
    expectError(await acct.client.request('PATCH', `${PREFIX}/`, { key: null, raw: 'null', headers: { 'content-type': 'application/json; charset=latin1' } }), 404, 'NOT_FOUND');
    // A key twice in one object is refused, naming it; the same key in two objects is fine.
    const twice = body.replace(/^\{/, '{"amount":"1",');
    assert.deepEqual(expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: twice, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_REQUEST').details, { field: 'amount', reason: 'duplicate key' });
  });

  test('a compressed JSON body is 415, not malformed JSON; Content-Encoding identity is plain JSON', async () => {
    const body = JSON.stringify(quoteReq());
    for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
      const raw = encoding === 'gzip' ? gzipSync(body) : body;
      const e = expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw, headers: { 'content-encoding': encoding } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(e.message, /Content-Encoding/);
    }
    expectOk(await acct.client.request('POST', `${PREFIX}/quote`, { raw: body, headers: { 'content-encoding': 'identity' } }));
  });
});

describe('admin API (/admin/v1, HUSH_ADMIN_TOKEN set)', () => {
  test('wrong or missing token → 401; a created key works at once; a revoked key stops at once; reconcile answers', async () => {
    const admin = new HushClient(t.opsUrl, t.adminToken!);
    for (const key of [null, 'nope', acct.apiKey, `${t.adminToken}x`]) {
      expectError(await admin.request('POST', '/admin/v1/accounts', { key, body: { name: 'x' } }), 401, 'UNAUTHORIZED');
    }
    const created = expectOk(await admin.post('/admin/v1/accounts', { name: 'partner' }), 201);
    assert.match(created.apiKey, /^hush_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/);
    registerSecret(secretOf(created.apiKey)); // shown once; from now on no response may contain it
    const partner = new HushClient(t.url, created.apiKey);
    expectOk(await partner.tokens());
    const fr = await address();
    expectError(await partner.quote(quoteReq({ feeBps: 5, feeRecipientAddress: fr })), 403, 'FEE_RECIPIENT_NOT_REGISTERED');
    expectOk(await admin.post(`/admin/v1/accounts/${created.accountId}/fee-recipients`, { address: fr }));
    expectOk(await partner.quote(quoteReq({ feeBps: 5, feeRecipientAddress: fr })));
    const keyId = created.apiKey.split('_')[1];
    expectOk(await admin.request('DELETE', `/admin/v1/keys/${keyId}`));
    expectError(await partner.tokens(), 401, 'UNAUTHORIZED');
    const r = expectOk(await admin.get('/admin/v1/reconcile'));
    assert.equal(typeof r.ok, 'boolean');
    assert.ok(Array.isArray(r.assets));
    expectError(await admin.request('PATCH', `/admin/v1/accounts/${created.accountId}`, { body: { status: 'gone' } }), 400, 'INVALID_REQUEST');
    expectError(await admin.get(`/admin/v1/accounts/acc_${randomUUID().slice(0, 8)}`), 404, 'NOT_FOUND');
  });
});

describe('order-time re-checks', () => {
  test('FEE_RECIPIENT_NOT_REGISTERED (403) at order time when the recipient was unregistered after the quote', async () => {
    const a = await t.createAccount({ feeRecipients: 1 });
    const fr = a.feeRecipients[0]!;
    const req = quoteReq({ feeBps: 25, feeRecipientAddress: fr });
    const quote = expectOk(await a.client.quote(req)).quote;
    const admin = new HushClient(t.opsUrl, t.adminToken!);
    expectOk(await admin.request('DELETE', `/admin/v1/accounts/${a.id}/fee-recipients/${fr}`));
    const e = expectError(await a.client.order(orderRequest(quote, req)), 403, 'FEE_RECIPIENT_NOT_REGISTERED');
    assert.equal(e.details?.feeRecipientAddress, fr);
    expectError(await a.client.quote(req), 403, 'FEE_RECIPIENT_NOT_REGISTERED');
  });

  test('an order created before its fee recipient was unregistered still replays on retry (with and without a key)', async () => {
    const a = await t.createAccount({ feeRecipients: 1 });
    const fr = a.feeRecipients[0]!;
    const firsts: { req: ReturnType<typeof quoteReq>; quote: unknown; key: string | undefined; body: unknown }[] = [];
    for (const key of ['fee-recipient-retry', undefined]) {
      const req = quoteReq({ feeBps: 25, feeRecipientAddress: fr });
      const quote = expectOk(await a.client.quote(req)).quote;
      firsts.push({ req, quote, key, body: expectOk(await a.client.order(orderRequest(quote, req), key)) });
    }
    const admin = new HushClient(t.opsUrl, t.adminToken!);
    expectOk(await admin.request('DELETE', `/admin/v1/accounts/${a.id}/fee-recipients/${fr}`));
    for (const f of firsts) {
      const again = await a.client.order(orderRequest(f.quote, f.req), f.key);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, f.body);
    }
  });

  test('INSUFFICIENT_LIQUIDITY (503 + Retry-After) when the pools can no longer cover a quoted amountOut; quotes then shrink', async () => {
    const sol = async () => expectOk(await acct.client.tokens()).tokens.find((x: any) => x.assetId === 'sol') as { max: string };
    const tokens = expectOk(await acct.client.tokens()).tokens as { assetId: string; max: string }[];
    const max = BigInt(tokens.find((x) => x.assetId === 'sol')!.max);
    // Two firm quotes that each need the whole live SOL bound delivered.
    const big = { amount: max.toString(), mode: 'exact_out' };
    const q1 = await freshQuote(big);
    const q2 = await freshQuote(big);
    expectOk(await acct.client.order(orderRequest(q1.quote, q1.req)));
    // The first order reserves its amountOut; wait for the live inventory to see it.
    const deadline = Date.now() + 10_000;
    while (BigInt((await sol()).max) >= max) {
      assert.ok(Date.now() < deadline, 'the live SOL bound never dropped after a reservation');
      await new Promise((r) => setTimeout(r, 200));
    }
    const before = await orderCount(t.db);
    const res = await acct.client.order(orderRequest(q2.quote, q2.req));
    const e = expectError(res, 503, 'INSUFFICIENT_LIQUIDITY');
    assert.equal(e.details?.assetId, 'sol');
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(await orderCount(t.db), before);
    // New quotes see the smaller live bound.
    const now = BigInt((await sol()).max);
    const tooHigh = expectError(await acct.client.quote(quoteReq(big)), 400, 'AMOUNT_TOO_HIGH');
    assert.equal(tooHigh.details?.max, now.toString());
  });
});

describe('secrets never leak', () => {
  test('no response — success or error — contains a key secret, the treasury seed, a stack trace or SQL', async () => {
    // HushClient asserts this on every response; here we provoke the paths most likely to leak.
    const { req, quote } = await freshQuote();
    const probes: ApiResponse[] = [
      await acct.client.request('POST', `${PREFIX}/quote`, { raw: `{"amount": "1", "x": ${'['.repeat(5000)}` }),
      await acct.client.request('POST', `${PREFIX}/quote`, { raw: `{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}` }),
      await acct.client.order(orderRequest({ ...quote, quoteId: `q_${'A'.repeat(600)}` }, req)),
      await acct.client.order(orderRequest({ ...quote, quoteId: `q_'; SELECT * FROM api_keys; --` }, req)),
      await acct.client.status(`trk_'or'1'='1`),
      await acct.client.deposit({ trackingId: "trk_1111111111111111111111' OR 1=1 --", signature: '1'.repeat(88) }),
      // A wrong secret (its last character changed; the key's own may already be 'A').
      await t.anon.tokens({ headers: { authorization: `Bearer ${acct.apiKey.slice(0, -1)}${acct.apiKey.endsWith('A') ? 'B' : 'A'}` } }),
      await acct.client.quote(quoteReq({ senderAddress: acct.apiKey })),
      await acct.client.quote(quoteReq({ recipientAddress: acct.apiKey })),
    ];
    for (const p of probes) {
      assert.ok(p.status >= 400 && p.status < 500, `${p.status} ${p.text.slice(0, 200)}`);
      assert.ok(!p.text.includes(acct.secret), 'the key secret is never echoed');
      assert.ok(!p.text.includes(acct.apiKey));
      assert.ok(!/\n\s+at /.test(p.text));
    }
    // An injection attempt in the idempotency key is just a key.
    const injected = await acct.client.order(orderRequest(quote, req), `'; DROP TABLE orders; --`);
    expectOk(injected);
    const replay = await acct.client.order(orderRequest(quote, req), `'; DROP TABLE orders; --`);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, injected.body);
    assert.ok((await orderCount(t.db)) >= 1, 'the orders table is intact');
  });
});
