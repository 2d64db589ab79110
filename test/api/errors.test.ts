/**
 * The error contract of docs/spec.md §2 and §6 over real HTTP: every code the partner API can produce on a
 * healthy server, with its exact status, the `{success:false,error:{code,message,details?,requestId}}`
 * body, and `X-Request-Id` on every response. (Expiry, rate limits and chain outage need their own
 * configuration: limits.test.ts. Idempotency codes: idempotency.test.ts.)
 *
 * HushClient additionally checks every response for leaks (key secrets, treasury seed, admin token,
 * stack frames, SQL).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { revokeApiKey } from '../../src/store/accounts-store.ts';
import {
  HushClient,
  PREFIX,
  address,
  expectError,
  expectOk,
  issueKey,
  offCurveAddress,
  orderCount,
  orderRequest,
  quoteRequest,
  registerSecret,
  secretOf,
  startTestHush,
  type ApiResponse,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';

let t: TestHush;
let acct: TestAccount;
let sender: Address;
let recipient: Address;

before(async () => {
  t = await startTestHush({ admin: true });
  acct = await t.createAccount({ feeRecipients: 2 });
  sender = await address();
  recipient = await address();
});
after(async () => {
  await t?.close();
});

const quoteReq = (extra: Record<string, unknown> = {}) => quoteRequest(sender, recipient, extra);

async function freshQuote(extra: Record<string, unknown> = {}, client = acct.client) {
  const req = quoteReq(extra);
  return { req, quote: expectOk(await client.quote(req)).quote };
}

describe('X-Request-Id (docs/spec.md §2)', () => {
  test('a well-formed incoming id is echoed on success, error, and operational responses', async () => {
    const calls: [string, (h: Record<string, string>) => Promise<ApiResponse>, number][] = [
      ['tokens', (h) => acct.client.tokens({ headers: h }), 200],
      ['quote 400', (h) => acct.client.quote({}, { headers: h }), 400],
      ['unauthorized', (h) => t.anon.tokens({ headers: h }), 401],
      ['not found', (h) => acct.client.get('/nope', { headers: h }), 404],
      ['malformed JSON', (h) => acct.client.request('POST', `${PREFIX}/quote`, { raw: '{"amount":', headers: h }), 400],
      ['415', (h) => acct.client.request('POST', `${PREFIX}/quote`, { raw: 'hello', headers: { ...h, 'content-type': 'text/plain' } }), 415],
      ['healthz', (h) => t.ops.get('/healthz', { headers: h }), 200],
      ['metrics', (h) => t.ops.get('/metrics', { headers: h }), 200],
    ];
    for (const [name, call, status] of calls) {
      const id = `req-${name.replace(/\W/g, '')}.${Date.now()}:abc_DEF`;
      const res = await call({ 'x-request-id': id });
      assert.equal(res.status, status, name);
      assert.equal(res.headers.get('x-request-id'), id, `${name}: echoed`);
      if (status >= 400) assert.equal(res.body.error.requestId, id, `${name}: error.requestId`);
    }
  });

  test('a malformed or missing id is replaced by a generated one, unique per request', async () => {
    const seen = new Set<string>();
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', 'slash/inside', '<script>', undefined]) {
      const res = await acct.client.quote({}, { headers: bad === undefined ? {} : { 'x-request-id': bad } });
      expectError(res, 400, 'INVALID_REQUEST');
      const id = res.headers.get('x-request-id')!;
      assert.notEqual(id, bad);
      assert.match(id, /^[A-Za-z0-9._:-]{1,128}$/);
      assert.equal(res.body.error.requestId, id);
      seen.add(id);
    }
    assert.equal(seen.size, 6, 'generated ids are unique');
  });
});

describe('INVALID_REQUEST (400)', () => {
  test('unknown field, wrong type, missing field, bad amount format: details.field names it', async () => {
    const cases: [unknown, string][] = [
      [{ ...quoteReq(), extra: 1 }, 'extra'],
      [{ ...quoteReq(), amount: 100000000 }, 'amount'],
      [{ ...quoteReq(), amount: '01' }, 'amount'],
      [{ ...quoteReq(), amount: '-5' }, 'amount'],
      [{ ...quoteReq(), amount: '1.5' }, 'amount'],
      [{ ...quoteReq(), feeBps: '5' }, 'feeBps'],
      [{ ...quoteReq(), feeBps: 1.5 }, 'feeBps'],
      [{ ...quoteReq(), mode: 'exact' }, 'mode'],
      [{ ...quoteReq(), senderAddress: null }, 'senderAddress'],
      [{ ...quoteReq(), sourceAssetId: ['sol'] }, 'sourceAssetId'],
      [(({ recipientAddress: _r, ...rest }) => rest)(quoteReq()), 'recipientAddress'],
      [(({ amount: _a, ...rest }) => rest)(quoteReq()), 'amount'],
    ];
    for (const [body, field] of cases) {
      const e = expectError(await acct.client.quote(body), 400, 'INVALID_REQUEST');
      assert.equal(e.details?.field, field, `${JSON.stringify(body)} → field ${e.details?.field}`);
    }
    // A decimal amount is told the fix (base units, digits only), not a regular expression.
    const decimal = expectError(await acct.client.quote({ ...quoteReq(), amount: '25.5' }), 400, 'INVALID_REQUEST');
    assert.match(String(decimal.details?.reason), /base units: decimal digits only/);
    assert.doesNotMatch(decimal.message, /\^\(0\|/);
    const unknown = expectError(await acct.client.quote({ ...quoteReq(), extra: 1 }), 400, 'INVALID_REQUEST');
    assert.equal(unknown.details?.reason, 'unknown field');
  });

  test('malformed JSON, empty body and non-object JSON', async () => {
    for (const raw of ['{"amount":', '{amount: 1}', "{'a':1}", '{"a":1}}', 'nul']) {
      const e = expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw }), 400, 'INVALID_REQUEST');
      assert.equal(e.details?.reason, 'malformed JSON', raw);
    }
    expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: '' }), 400, 'INVALID_REQUEST');
    for (const raw of ['[]', '"x"', '42', 'null', 'true']) expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw }), 400, 'INVALID_REQUEST');
  });

  test('order, deposit and refresh bodies are validated too; quote must be an object', async () => {
    const { req, quote } = await freshQuote();
    const ok = orderRequest(quote, req);
    const before = await orderCount(t.db);
    const orderCases: [unknown, string][] = [
      [{ ...ok, extra: true }, 'extra'],
      [{ ...ok, quote: 'q_abc' }, 'quote'],
      [{ ...ok, quote: null }, 'quote'],
      [{ ...ok, quote: [quote] }, 'quote'],
      [(({ senderAddress: _s, ...rest }) => rest)(ok), 'senderAddress'],
      [(({ quote: _q, ...rest }) => rest)(ok), 'quote'],
      [{ ...ok, feeBps: '0' }, 'feeBps'],
    ];
    for (const [body, field] of orderCases) {
      const e = expectError(await acct.client.order(body), 400, 'INVALID_REQUEST');
      assert.equal(e.details?.field, field, JSON.stringify(e));
    }
    for (const [body, field] of [
      [{ trackingId: 'trk_1111111111111111111111' }, 'signature'],
      [{ signature: 'x' }, 'trackingId'],
      [{ trackingId: 'trk_1111111111111111111111', signature: 'x', extra: 1 }, 'extra'],
      [{ trackingId: 5, signature: 'x' }, 'trackingId'],
    ] as const) {
      assert.equal(expectError(await acct.client.deposit(body), 400, 'INVALID_REQUEST').details?.field, field);
    }
    expectError(await acct.client.request('POST', `${PREFIX}/order/trk_1111111111111111111111/refresh`, { body: { force: true } }), 400, 'INVALID_REQUEST');
    assert.equal(await orderCount(t.db), before, 'no order was created by an invalid request');
  });

  test('X-Idempotency-Key must be 1–255 printable ASCII characters', async () => {
    const { req, quote } = await freshQuote();
    const e = expectError(await acct.client.order(orderRequest(quote, req), 'k'.repeat(256)), 400, 'INVALID_REQUEST');
    assert.equal(e.details?.field, 'X-Idempotency-Key');
    expectOk(await acct.client.order(orderRequest(quote, req), 'k'.repeat(255)));
  });
});

describe('failures before a route runs (router and HTTP parser) keep the SPEC shape and X-Request-Id', () => {
  /** One raw HTTP/1.1 exchange: what fetch refuses to send (bad encodings, oversized headers, garbage). */
  function rawExchange(request: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    const { hostname, port } = new URL(t.url);
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write(request));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (data += d));
      socket.on('error', () => {}); // the server may reset after answering
      socket.on('close', () => {
        const [head = '', body = ''] = data.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        try {
          resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) });
        } catch (e) {
          reject(new Error(`not JSON: ${JSON.stringify(data.slice(0, 300))}`));
        }
      });
      setTimeout(() => socket.end(), 2000).unref();
    });
  }
  const auth = () => `Authorization: Bearer ${acct.apiKey}\r\n`;
  const assertShape = (r: { status: number; headers: Record<string, string>; body: any }, status: number, code: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.success, false);
    assert.equal(r.body.error.code, code);
    assert.ok(r.headers['x-request-id'], 'X-Request-Id header');
    assert.equal(r.body.error.requestId, r.headers['x-request-id']);
  };

  test('a malformed URL encoding → 400 INVALID_REQUEST; a path parameter over the router limit → 404 NOT_FOUND', async () => {
    assertShape(await rawExchange(`GET ${PREFIX}/status/%E0%A4%A HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`), 400, 'INVALID_REQUEST');
    assertShape(await rawExchange(`GET ${PREFIX}/openapi.json%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 400, 'INVALID_REQUEST');
    const long = await rawExchange(`GET ${PREFIX}/status/trk_${'a'.repeat(120)} HTTP/1.1\r\nHost: x\r\n${auth()}X-Request-Id: long-param-1\r\nConnection: close\r\n\r\n`);
    assertShape(long, 404, 'NOT_FOUND');
    assert.equal(long.headers['x-request-id'], 'long-param-1', 'a well-formed incoming id is echoed here too');
  });

  test('headers over the size limit, a malformed header line, an unknown method → 400 INVALID_REQUEST', async () => {
    assertShape(await rawExchange(`GET ${PREFIX}/openapi.json HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(20_000)}\r\n\r\n`), 400, 'INVALID_REQUEST');
    assertShape(await rawExchange(`GET ${PREFIX}/openapi.json HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`), 400, 'INVALID_REQUEST');
    assertShape(await rawExchange(`FOO ${PREFIX}/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n`), 400, 'INVALID_REQUEST');
    const r = await rawExchange(`GET ${PREFIX}/openapi.json HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`);
    assert.match(r.headers['ratelimit-remaining'] ?? '', /^\d+$/, 'RateLimit-* on an answer the parser made too (docs/spec.md §7)');
    // The server is still fine.
    expectOk(await acct.client.tokens());
  });

  test('HTTP/1.1 without Host, or two Hosts → 400 INVALID_REQUEST with the RateLimit-* of unkeyed answers; HTTP/1.0 needs none', async () => {
    for (const path of [`${PREFIX}/tokens`, `${PREFIX}/openapi.json`, '/nowhere']) {
      const r = await rawExchange(`GET ${path} HTTP/1.1\r\n${auth()}X-Request-Id: no-host-1\r\n\r\n`);
      assertShape(r, 400, 'INVALID_REQUEST');
      assert.equal(r.body.error.details.reason, 'missing Host header');
      assert.equal(r.headers['x-request-id'], 'no-host-1');
      assert.match(r.headers['ratelimit-remaining'] ?? '', /^\d+$/, `RateLimit-Remaining on ${path}`);
      assert.equal(r.headers.connection, 'close');
    }
    const two = await rawExchange(`GET ${PREFIX}/tokens HTTP/1.1\r\nHost: a\r\n${auth()}host: b\r\n\r\n`);
    assertShape(two, 400, 'INVALID_REQUEST');
    assert.equal(two.body.error.details.reason, 'more than one Host header');
    const old = await rawExchange(`GET ${PREFIX}/openapi.json HTTP/1.0\r\n\r\n`);
    assert.equal(old.status, 200, JSON.stringify(old.body));
  });
});

describe('quote validation codes', () => {
  test('INVALID_ADDRESS names the field; the recipient must be on the curve (not a PDA / token account)', async () => {
    const offCurve = await offCurveAddress();
    const cases: [Record<string, unknown>, string][] = [
      [{ senderAddress: 'not-an-address' }, 'senderAddress'],
      [{ senderAddress: '1111' }, 'senderAddress'],
      [{ recipientAddress: 'O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O0O' }, 'recipientAddress'],
      [{ recipientAddress: offCurve }, 'recipientAddress'],
      [{ recipientAddress: `${recipient}1` }, 'recipientAddress'],
      [{ feeBps: 10, feeRecipientAddress: 'nope' }, 'feeRecipientAddress'],
      // Empty or far too long: still an address that is not valid, not a malformed request.
      [{ senderAddress: '' }, 'senderAddress'],
      [{ recipientAddress: 'x'.repeat(65) }, 'recipientAddress'],
      [{ recipientAddress: '1'.repeat(5000) }, 'recipientAddress'],
    ];
    for (const [extra, field] of cases) {
      const e = expectError(await acct.client.quote(quoteReq(extra)), 400, 'INVALID_ADDRESS');
      assert.equal(e.details?.field, field, JSON.stringify(extra));
    }
    // Sender = recipient is allowed.
    expectOk(await acct.client.quote(quoteReq({ recipientAddress: sender })));
  });

  test('UNSUPPORTED_ASSET, UNSUPPORTED_MODE (cross-asset exact_out); swappable pairs quote (PAIR_NOT_SUPPORTED: test/swaps)', async () => {
    const a = expectError(await acct.client.quote(quoteReq({ sourceAssetId: 'doge', destinationAssetId: 'doge' })), 400, 'UNSUPPORTED_ASSET');
    assert.deepEqual(a.details, { field: 'sourceAssetId', assetId: 'doge' });
    const b = expectError(await acct.client.quote(quoteReq({ destinationAssetId: 'SOL' })), 400, 'UNSUPPORTED_ASSET');
    assert.deepEqual(b.details, { field: 'destinationAssetId', assetId: 'SOL' });
    // Whatever its length: a mint address passed by mistake, or nothing at all, is an unknown asset too.
    for (const id of ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '']) {
      const e = expectError(await acct.client.quote(quoteReq({ sourceAssetId: id })), 400, 'UNSUPPORTED_ASSET');
      assert.deepEqual(e.details, { field: 'sourceAssetId', assetId: id });
    }
    const m = expectError(await acct.client.quote(quoteReq({ destinationAssetId: 'usdc', mode: 'exact_out' })), 400, 'UNSUPPORTED_MODE');
    assert.equal(m.details?.mode, 'exact_out');
    for (const [src, dst, amount] of [['sol', 'usdc', '1000000000'], ['usdc', 'usdt', '10000000'], ['usdt', 'bonk', '10000000']]) {
      const q = expectOk(await acct.client.quote(quoteReq({ sourceAssetId: src, destinationAssetId: dst, amount, mode: 'exact_in' }))).quote as { destinationAssetId: string; amountOut: string };
      assert.equal(q.destinationAssetId, dst);
      assert.ok(BigInt(q.amountOut) > 0n);
    }
  });

  test('AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH carry the live min and max', async () => {
    const tokens = expectOk(await acct.client.tokens()).tokens as { assetId: string; min: string; max: string }[];
    for (const tok of tokens) {
      const bounds = { min: tok.min, max: tok.max };
      const q = (amount: string, mode = 'exact_in') => acct.client.quote(quoteReq({ sourceAssetId: tok.assetId, destinationAssetId: tok.assetId, amount, mode }));
      for (const mode of ['exact_in', 'exact_out']) {
        assert.deepEqual(expectError(await q((BigInt(tok.min) - 1n).toString(), mode), 400, 'AMOUNT_TOO_LOW').details, bounds);
        assert.deepEqual(expectError(await q('0', mode), 400, 'AMOUNT_TOO_LOW').details, bounds);
        assert.deepEqual(expectError(await q((BigInt(tok.max) + 1n).toString(), mode), 400, 'AMOUNT_TOO_HIGH').details, bounds);
        assert.deepEqual(expectError(await q('9'.repeat(40), mode), 400, 'AMOUNT_TOO_HIGH').details, bounds);
        // Any amount above max, however many digits (docs/spec.md §4).
        assert.deepEqual(expectError(await q('1'.repeat(41), mode), 400, 'AMOUNT_TOO_HIGH').details, bounds);
        assert.deepEqual(expectError(await q('9'.repeat(10_000), mode), 400, 'AMOUNT_TOO_HIGH').details, bounds);
      }
      expectOk(await q(tok.min));
      expectOk(await q(tok.max));
    }
  });

  test('FEE_BPS_TOO_HIGH (per-account cap), FEE_RECIPIENT_REQUIRED, FEE_RECIPIENT_NOT_REGISTERED (403)', async () => {
    const fr = acct.feeRecipients[0];
    const high = expectError(await acct.client.quote(quoteReq({ feeBps: 101, feeRecipientAddress: fr })), 400, 'FEE_BPS_TOO_HIGH');
    assert.deepEqual(high.details, { feeCapBps: 100 });
    expectError(await acct.client.quote(quoteReq({ feeBps: -1, feeRecipientAddress: fr })), 400, 'FEE_BPS_TOO_HIGH');
    expectError(await acct.client.quote(quoteReq({ feeBps: 1_000_000, feeRecipientAddress: fr })), 400, 'FEE_BPS_TOO_HIGH');
    expectOk(await acct.client.quote(quoteReq({ feeBps: 100, feeRecipientAddress: fr })));
    // The cap is per account.
    const generous = await t.createAccount({ feeCapBps: 500 });
    expectOk(await generous.client.quote(quoteReq({ feeBps: 500, feeRecipientAddress: generous.feeRecipients[0] })));
    assert.deepEqual(expectError(await generous.client.quote(quoteReq({ feeBps: 501, feeRecipientAddress: generous.feeRecipients[0] })), 400, 'FEE_BPS_TOO_HIGH').details, { feeCapBps: 500 });
    const noFee = await t.createAccount({ feeCapBps: 0 });
    expectError(await noFee.client.quote(quoteReq({ feeBps: 1, feeRecipientAddress: noFee.feeRecipients[0] })), 400, 'FEE_BPS_TOO_HIGH');

    const req = expectError(await acct.client.quote(quoteReq({ feeBps: 10 })), 400, 'FEE_RECIPIENT_REQUIRED');
    assert.equal(req.details?.field, 'feeRecipientAddress');
    expectOk(await acct.client.quote(quoteReq({ feeBps: 0 })));

    const stranger = await address();
    const nr = expectError(await acct.client.quote(quoteReq({ feeBps: 10, feeRecipientAddress: stranger })), 403, 'FEE_RECIPIENT_NOT_REGISTERED');
    assert.equal(nr.details?.feeRecipientAddress, stranger);
    // Another account's registered recipient is not ours.
    expectError(await acct.client.quote(quoteReq({ feeBps: 10, feeRecipientAddress: generous.feeRecipients[0] })), 403, 'FEE_RECIPIENT_NOT_REGISTERED');
  });
});

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
    const unknown = generateApiKey().apiKey;
    const wrongSecret = `hush_${acct.keyId}_${generateApiKey().apiKey.slice(-43)}`;
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

  test('forged, missing or another account’s quoteId → QUOTE_NOT_FOUND; nothing is created', async () => {
    const before = await orderCount(t.db);
    const { req, quote } = await freshQuote();
    const id: string = quote.quoteId;
    const mid = Math.floor(id.length / 2);
    const flipped = id.slice(0, mid) + (id[mid] === 'A' ? 'B' : 'A') + id.slice(mid + 1);
    for (const quoteId of [flipped, `${id}A`, id.slice(0, -2), 'q_', 'q_AAAA', 'nope', '', 42, null]) {
      expectError(await acct.client.order(orderRequest({ ...quote, quoteId }, req)), 404, 'QUOTE_NOT_FOUND');
    }
    const { quoteId: _omit, ...noId } = quote;
    expectError(await acct.client.order(orderRequest(noId, req)), 404, 'QUOTE_NOT_FOUND');
    expectError(await acct.client.order(orderRequest({}, req)), 404, 'QUOTE_NOT_FOUND');
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
