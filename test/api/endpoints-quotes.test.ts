/**
 * Every endpoint of docs/spec.md §4 against a real, listening Hush (PGlite store, embedded chain), over HTTP:
 * tokens, quote (fee arithmetic, firmness, network fee), order (the unsigned transaction decoded,
 * simulated, submitted), refresh, status (ETag), deposit hint, and the operational routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address } from '@solana/kit';
import { requestTokenAirdrop, waitForStatus } from '../support/localnet.ts';
import { assertDocumented } from '../support/openapi-conformance.ts';
import {
  PREFIX, USDC_MINT, address, expectOk, quoteRequest, type TestAccount, type TestHush, quoteAndOrder,
} from '../support/hush-server.ts';
import { WSOL_MINT, AMOUNT, ISO_MS, QUOTE_FIELDS, startEndpointSuite } from '../support/endpoint-suite.ts';

/** Where an order can be once its deposit is confirmed (the settlement worker runs alongside the API). */

let t: TestHush, acct: TestAccount, serviceFeeBps: number;
before(async () => {
  ({ t, acct } = await startEndpointSuite());
  serviceFeeBps = t.hush.config.serviceFeeBps;
});
after(async () => t?.close());

/** docs/spec.md §4 fee arithmetic, checked on the wire. */
function assertQuoteArithmetic(q: any, req: { amount: string; mode?: string; feeBps?: number }) {
  assert.deepEqual(Object.keys(q).sort(), QUOTE_FIELDS);
  assert.deepEqual(Object.keys(q.feeBreakdown).sort(), ['depositAccountRent', 'networkFee', 'partnerFee', 'serviceFee']);
  // Not a fee: the deposit account's rent the sender pays beside amountIn, in lamports (a refund returns it).
  assert.equal(q.feeBreakdown.depositAccountRent, '2039280');
  for (const k of ['amountIn', 'amountOut', 'fee', 'protocolFee', 'networkFee', 'min', 'max']) assert.match(q[k], AMOUNT, k);
  for (const k of ['serviceFee', 'partnerFee', 'networkFee']) assert.match(q.feeBreakdown[k], AMOUNT, `feeBreakdown.${k}`);
  const n = (s: string) => BigInt(s);
  const [amountIn, amountOut, fee, protocolFee, networkFee] = [n(q.amountIn), n(q.amountOut), n(q.fee), n(q.protocolFee), n(q.networkFee)];
  const serviceFee = n(q.feeBreakdown.serviceFee);
  const partnerFee = n(q.feeBreakdown.partnerFee);
  const feeBps = BigInt(req.feeBps ?? 0);
  assert.equal(fee, protocolFee + networkFee, 'fee = protocolFee + networkFee');
  assert.equal(protocolFee, serviceFee + partnerFee, 'protocolFee = serviceFee + partnerFee');
  assert.equal(n(q.feeBreakdown.networkFee), networkFee, 'feeBreakdown repeats networkFee');
  assert.equal(partnerFee, (amountIn * feeBps) / 10_000n, 'partnerFee = floor(amountIn × feeBps / 10000)');
  assert.equal(serviceFee, (amountIn * BigInt(serviceFeeBps)) / 10_000n, 'serviceFee = floor(amountIn × serviceFeeBps / 10000)');
  assert.equal(amountIn, amountOut + fee, 'same asset: amountIn = amountOut + fee');
  assert.ok(networkFee > 0n, 'networkFee covers Hush transactions');
  assert.equal(q.mode, req.mode ?? 'exact_in');
  if ((req.mode ?? 'exact_in') === 'exact_in') {
    assert.equal(amountIn, n(req.amount));
  } else {
    assert.equal(amountOut, n(req.amount));
    // amountIn is the SMALLEST value that delivers `amount`: one base unit less delivers less.
    const x = amountIn - 1n;
    const out = x - (x * feeBps) / 10_000n - (x * BigInt(serviceFeeBps)) / 10_000n - networkFee;
    assert.ok(out < amountOut, `amountIn − 1 would still deliver ${out} ≥ ${amountOut}`);
  }
  assert.equal(Number.isInteger(q.duration), true);
  assert.ok(q.duration >= 0);
  assert.match(q.quoteId, /^\S+$/);
  assert.match(q.issuedAt, ISO_MS);
  assert.match(q.expiresAt, ISO_MS);
}

describe('GET /tokens', () => {
  test('lists the assets with the docs/spec.md §4 fields; SOL is native with the wrapped-SOL mint', async () => {
    const res = await acct.client.tokens();
    const body = expectOk(res);
    assert.deepEqual(Object.keys(body).sort(), ['success', 'tokens']);
    assert.ok(Array.isArray(body.tokens) && body.tokens.length >= 4);
    const ids = body.tokens.map((x: any) => x.assetId);
    assert.equal(new Set(ids).size, ids.length, 'asset ids are unique');
    for (const id of ['sol', 'usdc', 'usdt']) assert.ok(ids.includes(id), id);
    for (const tok of body.tokens) {
      assert.deepEqual(Object.keys(tok).sort(), ['assetId', 'decimals', 'denominations', 'max', 'min', 'mint', 'name', 'native', 'swapGrid', 'swappable', 'symbol', 'tokenProgram']);
      // docs/spec.md §9: standard amounts, ascending within the configured bounds; the swap grid, a positive step.
      assert.ok(tok.denominations.length > 0, `${tok.assetId} has standard amounts`);
      tok.denominations.forEach((d: string, i: number) => {
        assert.match(d, AMOUNT);
        if (i > 0) assert.ok(BigInt(d) > BigInt(tok.denominations[i - 1]));
      });
      assert.match(tok.swapGrid, /^[1-9][0-9]*$/);
      assert.equal(typeof tok.symbol, 'string');
      assert.equal(typeof tok.name, 'string');
      assert.ok(Number.isInteger(tok.decimals));
      assert.equal(typeof tok.native, 'boolean');
      assert.equal(typeof tok.swappable, 'boolean');
      assert.match(tok.min, AMOUNT);
      assert.match(tok.max, AMOUNT);
      assert.ok(BigInt(tok.min) >= 1n && BigInt(tok.min) <= BigInt(tok.max));
    }
    const sol = body.tokens.find((x: any) => x.assetId === 'sol');
    assert.equal(sol.native, true);
    assert.equal(sol.mint, WSOL_MINT);
    assert.equal(sol.decimals, 9);
    assert.equal(body.tokens.filter((x: any) => x.native).length, 1, 'only SOL is native');
    const usdc = body.tokens.find((x: any) => x.assetId === 'usdc');
    assert.equal(usdc.mint, USDC_MINT);
    assert.equal(usdc.decimals, 6);
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.ok(res.headers.get(h) !== null, `${h} header`);
    // The IETF fields beside them, from the same bucket.
    const [limit, remaining, reset] = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((h) => res.headers.get(h));
    assert.equal(res.headers.get('ratelimit-policy'), `"default";q=${limit};w=2`);
    assert.equal(res.headers.get('ratelimit'), `"default";r=${remaining};t=${reset}`);
  });
});

describe('POST /quote', () => {
  test('exact_in and exact_out, SOL and USDC, with and without a partner fee: docs/spec.md §4 arithmetic holds', async () => {
    const sender = await address();
    const recipient = await address();
    const tokens = expectOk(await acct.client.tokens()).tokens;
    const cases = [
      { sourceAssetId: 'sol', amount: '100000000' },
      { sourceAssetId: 'sol', amount: '100000000', mode: 'exact_out' },
      { sourceAssetId: 'sol', amount: '123456789', mode: 'exact_out', feeBps: 37, feeRecipientAddress: acct.feeRecipients[0] },
      { sourceAssetId: 'usdc', amount: '5000000' },
      { sourceAssetId: 'usdc', amount: '5000001', mode: 'exact_out' },
      { sourceAssetId: 'usdc', amount: '99999999', mode: 'exact_in', feeBps: 100, feeRecipientAddress: acct.feeRecipients[1] },
      { sourceAssetId: 'usdc', amount: '7777777', mode: 'exact_out', feeBps: 100, feeRecipientAddress: acct.feeRecipients[1] },
    ];
    for (const c of cases) {
      const req = { ...c, destinationAssetId: c.sourceAssetId, senderAddress: sender, recipientAddress: recipient };
      const q = expectOk(await acct.client.quote(req)).quote;
      assertQuoteArithmetic(q, req);
      assert.equal(q.sourceAssetId, c.sourceAssetId);
      assert.equal(q.destinationAssetId, c.sourceAssetId);
      const tok = tokens.find((x: any) => x.assetId === c.sourceAssetId);
      assert.equal(q.min, tok.min, 'quote min = live bound of GET /tokens');
      assert.equal(q.max, tok.max, 'quote max = live bound of GET /tokens');
    }
  });

  test('the quote lives exactly HUSH_QUOTE_TTL_S (default 60 s) and is issued now', async () => {
    const before = Date.now();
    const q = expectOk(await acct.client.quote(quoteRequest(await address(), await address()))).quote;
    const issued = Date.parse(q.issuedAt);
    assert.equal(Date.parse(q.expiresAt) - issued, t.hush.config.quoteTtlS * 1000);
    assert.equal(t.hush.config.quoteTtlS, 60);
    assert.ok(issued >= before - 5 && issued <= Date.now() + 5);
  });

  test('a sender may also be the recipient; the quote is firm (the order repeats its amounts exactly)', async () => {
    const me = await address();
    const { q, o } = await quoteAndOrder(acct.client, me, me, { amount: '250000000', mode: 'exact_out' });
    assert.equal(o.amountIn, q.amountIn);
    assert.equal(o.amountOut, q.amountOut);
    assert.equal(o.amountOut, '250000000');
  });

  test('networkFee is one flat figure: the same for a recipient with a token account and one without (docs/spec.md §4, §9)', async () => {
    const sender = await address();
    const without = await address();
    const withAta = await address();
    // The faucet creates withAta's USDC associated token account.
    await waitForStatus(t.rpc, await requestTokenAirdrop(t.chainUrl, withAta, USDC_MINT, 1n), 'confirmed');
    const feeOf = async (recipient: Address, assetId = 'usdc', amount = '10000000') =>
      BigInt(expectOk(await acct.client.quote({ amount, sourceAssetId: assetId, destinationAssetId: assetId, senderAddress: sender, recipientAddress: recipient })).quote.networkFee);
    const missing = await feeOf(without);
    assert.equal(await feeOf(withAta), missing, 'a fee that depended on the recipient would tell recipients apart on the chain');
    // It prices the expected share (70 % by default) of a token account's rent (2,039,280 lamports ≈ 0.306 USDC):
    // well above a bare payout's fees, below a whole rent.
    assert.ok(missing > 150_000n && missing < 306_000n, `flat networkFee ${missing} in USDC base units`);
    assert.equal(await feeOf(without, 'usdc', '20000000'), missing, 'nor does it depend on the amount');
    // SOL payouts are system transfers: no token account, no rent, same fee for both recipients.
    assert.equal(await feeOf(without, 'sol', '100000000'), await feeOf(withAta, 'sol', '100000000'));
  });
});

describe('operational routes (no auth, on the ops listener)', () => {
  test('GET /healthz and /readyz', async () => {
    const h = await t.ops.get('/healthz');
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'ok');
    const r = await t.ops.get('/readyz');
    assert.equal(r.status, 200);
    assert.deepEqual({ store: r.body.store, chain: r.body.chain }, { store: 'ok', chain: 'ok' });
  });

  test('GET /metrics is Prometheus text with request durations and orders by status', async () => {
    await acct.client.tokens();
    assert.equal((await t.anon.get('/transfer/v1/tokens')).status, 401);
    const m = await t.ops.get('/metrics');
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(m.text, /^# TYPE hush_http_request_duration_seconds histogram$/m);
    assert.match(m.text, /^hush_http_request_duration_seconds_count\{[^}]*route="\/transfer\/v1\/tokens"[^}]*\} [1-9]\d*$/m);
    // The status label is the response's final status, refusals included.
    assert.match(m.text, /^hush_http_request_duration_seconds_count\{(?=[^}]*route="\/transfer\/v1\/tokens")(?=[^}]*status="401")[^}]*\} [1-9]\d*$/m);
    assert.match(m.text, /^# TYPE hush_orders gauge$/m);
    // One gauge per docs/spec.md §5 status; together they count every order (none is being created meanwhile).
    const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders`);
    let total = 0;
    for (const st of ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed', 'expired', 'refunding', 'refunded', 'failed']) {
      const line = new RegExp(`^hush_orders\\{status="${st}"\\} (\\d+)$`, 'm').exec(m.text);
      assert.ok(line, `hush_orders{status="${st}"}`);
      total += Number(line[1]);
    }
    assert.ok(rows[0]!.n > 0);
    assert.equal(total, rows[0]!.n);
  });

  test('GET /transfer/v1/openapi.json lists every partner path; GET /docs renders HTML', async () => {
    const o = await t.anon.get(`${PREFIX}/openapi.json`);
    assert.equal(o.status, 200);
    assert.match(String(o.body.openapi), /^3\./);
    const paths = Object.keys(o.body.paths);
    for (const p of [`${PREFIX}/tokens`, `${PREFIX}/quote`, `${PREFIX}/order`, `${PREFIX}/order/{trackingId}/refresh`, `${PREFIX}/status/{trackingId}`, `${PREFIX}/deposit`]) {
      assert.ok(paths.includes(p), `openapi lists ${p}; has ${paths.join(', ')}`);
    }
    assert.ok(!paths.some((p) => p.startsWith('/admin')), 'the admin API is not advertised');
    // Partners are served the rules themselves, never a reference into a document they cannot read.
    assert.doesNotMatch(JSON.stringify(o.body), /SPEC §|spec\.md/, 'the OpenAPI document cites no spec section');
    assert.ok(o.body.paths[`${PREFIX}/order`].post, 'POST /order documented');
    // Every status with its headers; errors name their codes (HushClient holds every test's answers to this).
    const ops = Object.values<Record<string, any>>(o.body.paths).flatMap((p) => Object.entries<any>(p));
    for (const [method, op] of ops) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        for (const h of ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) assert.ok(r.headers?.[h], `${op.summary} ${status}: ${h}`);
        if (['429', '503'].includes(status)) assert.ok(r.headers['Retry-After'], `${op.summary} ${status}: Retry-After`);
        if (Number(status) >= 400) assert.ok(r.content['application/json'].schema.properties.error.properties.code.enum.length > 0, `${op.summary} ${status}: codes`);
      }
      if (method === 'post') for (const s of ['400', '413', '415']) assert.ok(op.responses[s], `${op.summary}: ${s}`);
    }
    const status = o.body.paths[`${PREFIX}/status/{trackingId}`].get.responses;
    assert.equal(status['304'].content, undefined, '304 has no body');
    assert.ok(status['304'].headers.ETag && status['200'].headers.ETag);
    assert.deepEqual(o.body.paths[`${PREFIX}/order`].post.responses['409'].content['application/json'].schema.properties.error.properties.code.enum, [
      'QUOTE_MISMATCH', 'QUOTE_ALREADY_USED', 'IDEMPOTENCY_CONFLICT', 'ORDER_IN_PROGRESS',
    ]);
    assert.ok(o.body.paths[`${PREFIX}/order`].post.responses['200'].headers['Idempotent-Replayed']);
    // The conformance check itself refuses what the document does not promise.
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/tokens`, 404, { error: { code: 'NOT_FOUND' } }), /status not in the OpenAPI document/);
    const notFound = (code: string) => ({ success: false, error: { code, message: 'x', requestId: 'r' } });
    await assertDocumented(t.url, 'GET', `${PREFIX}/status/trk_x`, 404, notFound('NOT_FOUND'));
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/status/trk_x`, 404, notFound('QUOTE_NOT_FOUND')), /error\/code must be equal to one of the allowed values/);
    const tokens = expectOk(await acct.client.tokens());
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/tokens`, 200, { ...tokens, tokens: [{ ...tokens.tokens[0], decimals: '6' }] }), /does not match the documented schema/);
    const d = await t.anon.get('/docs');
    assert.equal(d.status, 200);
    assert.match(d.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(d.text, /<html/i);
    assert.match(d.text, /<title>Hush API reference<\/title>/, 'the tab names the API, not the renderer');
  });
});
