/**
 * The error contract of docs/spec.md §2 and §6 over real HTTP: every code the partner API can produce on a
 * healthy server, with its exact status, the `{success:false,error:{code,message,details?,requestId}}`
 * body, and `X-Request-Id` on every response. (Expiry, rate limits and chain outage need their own
 * configuration: limits.test.ts. Idempotency codes: idempotency.test.ts.)
 *
 * This file: Requests Hush cannot take: X-Request-Id, malformed input, failures before a route runs and the quote validation codes.
 *
 * HushClient additionally checks every response for leaks (key secrets, treasury seed, admin token,
 * stack frames, SQL).
 */
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import {
  PREFIX, address, expectError, expectOk, offCurveAddress, orderCount, orderRequest, type ApiResponse,
  type TestAccount, type TestHush, startErrorSuite, type ErrorSuite,
} from '../support/hush-server.ts';

let t: TestHush, acct: TestAccount, sender: Address;
let quoteReq: ErrorSuite['quoteReq'], freshQuote: ErrorSuite['freshQuote'];
before(async () => void ({ t, acct, sender, quoteReq, freshQuote } = await startErrorSuite()));
after(async () => t?.close());

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
    // Every missing field at once, in words (issue 43): not one at a time, not "must have required property".
    const none = expectError(await acct.client.quote((({ amount: _a, senderAddress: _s, ...rest }) => rest)(quoteReq())), 400, 'INVALID_REQUEST');
    assert.equal(none.message, 'Invalid request: missing amount, senderAddress (required)');
    assert.deepEqual(none.details, { field: 'amount', reason: 'required; also missing: senderAddress' });
    // A decimal amount is told the fix (base units, digits only), not a regular expression.
    const decimal = expectError(await acct.client.quote({ ...quoteReq(), amount: '25.5' }), 400, 'INVALID_REQUEST');
    assert.match(String(decimal.details?.reason), /base units: decimal digits only/);
    assert.doesNotMatch(decimal.message, /\^\(0\|/);
    const unknown = expectError(await acct.client.quote({ ...quoteReq(), extra: 1 }), 400, 'INVALID_REQUEST');
    assert.equal(unknown.details?.reason, 'unknown field');
  });

  test('a value that fits none of a union\'s forms is told its forms, or the error of the form it meant', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ privacy: {} }, 'privacy', 'must have one of: minAnonymitySet, maxDelaySeconds'],
      [{ privacy: { maxDelaySeconds: 1.5 } }, 'privacy.maxDelaySeconds', 'must be integer'],
      [{ privacy: { maxDelaySeconds: -1 } }, 'privacy.maxDelaySeconds', 'must be >= 0'],
      [{ privacy: { minAnonymitySet: 3, maxDelaySeconds: 60 } }, 'privacy', 'takes one of maxDelaySeconds, minAnonymitySet, not more'],
      [{ mode: 'exactIn' }, 'mode', 'must be one of: "exact_in", "exact_out"'],
    ];
    for (const [extra, field, reason] of cases) {
      const e = expectError(await acct.client.quote({ ...quoteReq(), ...extra }), 400, 'INVALID_REQUEST');
      assert.deepEqual(e.details, { field, reason }, JSON.stringify(extra));
      assert.equal(e.message, `Invalid request: ${field} ${reason}`);
    }
    const noQuery = expectError(await acct.client.request('GET', `${PREFIX}/orders`), 400, 'INVALID_REQUEST');
    assert.deepEqual(noQuery.details, { field: 'quoteId', reason: 'required' });
  });

  test('malformed JSON, empty body and non-object JSON', async () => {
    for (const raw of ['{"amount":', '{amount: 1}', "{'a':1}", '{"a":1}}', 'nul']) {
      const e = expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw }), 400, 'INVALID_REQUEST');
      assert.equal(e.details?.reason, 'malformed JSON', raw);
    }
    expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: '' }), 400, 'INVALID_REQUEST');
    // Well-formed, refused for a prototype key: said so, not "malformed".
    const proto = expectError(await acct.client.request('POST', `${PREFIX}/quote`, { raw: '{"amount":"1","__proto__":{"x":1}}' }), 400, 'INVALID_REQUEST');
    assert.equal(proto.details?.reason, 'forbidden key (__proto__ or constructor.prototype)');
    // Bytes that are not UTF-8 are refused, not read with U+FFFD in their place.
    const bytes = Buffer.concat([Buffer.from('{"amount":"1","sourceAssetId":"us'), Buffer.from([0xff, 0xfe]), Buffer.from('dc"}')]);
    const res = await fetch(`${t.url}${PREFIX}/quote`, { method: 'POST', headers: { authorization: `Bearer ${acct.apiKey}`, 'content-type': 'application/json' }, body: bytes });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; details?: { reason?: string } } };
    assert.equal(`${body.error.code}:${body.error.details?.reason}`, 'INVALID_REQUEST:invalid UTF-8');
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

describe('failures before a route runs (router and HTTP parser) keep the error shape and X-Request-Id', () => {
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
      // One character too many on an address whose value times 58 no longer fits 32 bytes (a random address + '1'
      // still fits when its first byte is below 5: one run in sixty, half of them on the curve, passed as valid).
      [{ recipientAddress: 'So111111111111111111111111111111111111111121' }, 'recipientAddress'],
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
    // Negative is not "too high": the field is wrong (issue 43).
    assert.deepEqual(expectError(await acct.client.quote(quoteReq({ feeBps: -1, feeRecipientAddress: fr })), 400, 'INVALID_REQUEST').details, { field: 'feeBps', reason: 'negative' });
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
