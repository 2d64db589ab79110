/**
 * Fuzzing every route of a real, listening Hush with random and malformed requests (fast-check):
 * random JSON, near-valid bodies with one bad field, mutated genuine quotes, broken JSON text, odd
 * content types, random paths, keys and headers. Properties, for every response:
 *   - never a 5xx;
 *   - X-Request-Id present; failures in the docs/spec.md §2 shape with a docs/spec.md §6 code and its status;
 *   - no leak (key secrets, treasury seed, admin token, stack frames, SQL) — checked by HushClient;
 * and after the run: no order was created or moved, no idempotency record left behind.
 *
 * Runs on PostgreSQL when reachable (the embedded PGlite path is fuzzed through the other files'
 * servers), else on PGlite. FUZZ_RUNS scales the number of cases per route (default 120).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Address } from '@solana/kit';
import {
  HushClient,
  PREFIX,
  address,
  offCurveAddress,
  orderRequest,
  postgresSkipReason,
  quoteRequest,
  randomSignature,
  startTestHush,
  expectOk,
  type ApiResponse,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';
import { randomLoopback } from '../support/http-from.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

let t: TestHush;
let acct: TestAccount;
let admin: HushClient;
let realQuote: Record<string, any>;
let realOrderBody: Record<string, any>;
let realTrackingId: string;
let wallets: Address[];
let snapshot: string;

async function storeState(): Promise<string> {
  const o = await t.db.query<{ n: number; s: string | null }>(
    `SELECT count(*)::int AS n, string_agg(tracking_id || ':' || status || ':' || amount_in || ':' || amount_out, ',' ORDER BY id) AS s FROM orders`,
  );
  const h = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM order_history`);
  const k = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys`);
  return JSON.stringify([o.rows[0], h.rows[0], k.rows[0]]);
}

before(async () => {
  t = await startTestHush({ engine: postgresSkipReason ? 'pglite' : 'postgres', admin: true });
  acct = await t.createAccount({ feeRecipients: 2 });
  admin = new HushClient(t.opsUrl, t.adminToken!);
  wallets = [await address(), await address(), acct.feeRecipients[0]!, await offCurveAddress()];
  const req = quoteRequest(wallets[0]!, wallets[1]!, { feeBps: 20, feeRecipientAddress: acct.feeRecipients[0] });
  realQuote = expectOk(await acct.client.quote(req)).quote;
  realOrderBody = orderRequest(realQuote, req);
  // One real order (from another quote) so trackingId-based routes also meet an existing order.
  const req2 = quoteRequest(wallets[0]!, wallets[1]!);
  const q2 = expectOk(await acct.client.quote(req2)).quote;
  realTrackingId = expectOk(await acct.client.order(orderRequest(q2, req2), 'fuzz-setup')).order.trackingId;
  snapshot = await storeState();
});
after(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------- arbitraries

const asciiChar = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const printable = (maxLength = 40) => fc.string({ unit: asciiChar, maxLength });
const anyText = (maxLength = 60) => fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'grapheme', maxLength }), fc.string({ unit: 'binary', maxLength }));
const amountLike = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 1n << 70n }).map(String) },
  fc.constantFrom('0', '1', '10000000', '1000000000000', '1000000000001', '18446744073709551615', '18446744073709551616', '9'.repeat(40), '01', '-1', '1e9', '1.0', ' 1', '', '0x10'),
  fc.integer().map(String),
);
const assetLike = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('sol', 'usdc', 'usdt', 'bonk') },
  fc.constantFrom('SOL', 'doge', '', 'sol ', 'x'.repeat(33), '__proto__', 'constructor', 'hasOwnProperty'),
  printable(10),
);
const addressLike = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...wallets) },
    fc.constantFrom('11111111111111111111111111111111', 'So11111111111111111111111111111111111111112', '', 'O0Il', 'x'.repeat(65)),
    printable(50),
    fc.uint8Array({ minLength: 31, maxLength: 33 }).map((b) => Buffer.from(b).toString('base64')),
  );
const weird = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e300, -0, Number.MAX_SAFE_INTEGER, [], {}, '', ' ', '\u0000', '\ud800', '💸'),
  anyText(),
);
/** A value for a field: usually plausible, sometimes anything. */
const fieldValue = (plausible: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: weird });

const quoteBody = () =>
  fc.oneof(
    // Near-valid: every required field present and plausible, so requests reach the service's own checks.
    { weight: 3, arbitrary: fc.tuple(assetLike, fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, assetLike)).chain(([src, dst]) =>
      fc.record(
        {
          amount: amountLike,
          sourceAssetId: fc.constant(src),
          destinationAssetId: fc.constant(dst ?? src),
          senderAddress: addressLike(),
          recipientAddress: addressLike(),
          mode: fc.constantFrom('exact_in', 'exact_out'),
          feeBps: fc.oneof(fc.integer({ min: -10, max: 150 }), fc.constantFrom(0, 20, 100, 101, 1000, 2 ** 31, 2 ** 53, -(2 ** 53))),
          feeRecipientAddress: addressLike(),
        },
        { requiredKeys: ['amount', 'sourceAssetId', 'destinationAssetId', 'senderAddress', 'recipientAddress'] },
      ),
    ) },
    // Anything goes.
    fc.record(
      {
        amount: fieldValue(amountLike),
        sourceAssetId: fieldValue(assetLike),
        destinationAssetId: fieldValue(assetLike),
        senderAddress: fieldValue(addressLike()),
        recipientAddress: fieldValue(addressLike()),
        mode: fieldValue(fc.constantFrom('exact_in', 'exact_out', 'EXACT_IN', 'exact')),
        feeBps: fieldValue(fc.integer({ min: -10, max: 2000 })),
        feeRecipientAddress: fieldValue(addressLike()),
        extra: weird,
      },
      { requiredKeys: [] },
    ),
  );

/** The genuine quote and order body with 1–3 random changes (never identical to the original). */
const mutatedOrderBody = () =>
  fc
    .tuple(
      fc.array(
        fc.record({
          where: fc.constantFrom('quote', 'quote', 'quote.feeBreakdown', 'body'),
          op: fc.constantFrom('set', 'delete', 'add'),
          key: fc.oneof(fc.constantFrom(...Object.keys(realQuote), 'serviceFee', 'partnerFee', 'networkFee', 'senderAddress', 'recipientAddress', 'feeBps', 'feeRecipientAddress', 'quote'), printable(12)),
          value: fc.oneof(weird, amountLike, addressLike(), fc.constant(realQuote.quoteId)),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([edits]) => {
      const body = structuredClone(realOrderBody);
      for (const e of edits) {
        const target: Record<string, unknown> = e.where === 'body' ? body : e.where === 'quote' ? body.quote : body.quote?.feeBreakdown;
        if (!target || typeof target !== 'object') continue;
        if (e.op === 'delete') delete target[e.key];
        else target[e.key] = e.value;
      }
      return body;
    })
    .filter((b) => JSON.stringify(b) !== JSON.stringify(realOrderBody));

const orderBody = () =>
  fc.oneof(
    mutatedOrderBody(),
    fc.record(
      { quote: fieldValue(fc.dictionary(printable(12), weird, { maxKeys: 5 })), senderAddress: fieldValue(addressLike()), recipientAddress: fieldValue(addressLike()), feeBps: weird, feeRecipientAddress: fieldValue(addressLike()) },
      { requiredKeys: [] },
    ),
  );

const trackingLike = () =>
  fc.oneof(
    fc.constantFrom(realTrackingId, 'trk_1111111111111111111111', `${realTrackingId}x`, realTrackingId.slice(0, -1), 'trk_', '..', '%2e%2e', '%00', 'trk_' + '1'.repeat(70)),
    fc.stringMatching(/^trk_[1-9A-HJ-NP-Za-km-z]{22}$/),
    printable(30),
  );

const depositBody = () =>
  fc.oneof(
    fc.record(
      {
        trackingId: fieldValue(trackingLike()),
        signature: fieldValue(fc.oneof(fc.constant(randomSignature()), fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{60,90}$/), printable(100), fc.constantFrom('1'.repeat(64), '1'.repeat(129)))),
        extra: weird,
      },
      { requiredKeys: [] },
    ),
    weird,
  );

/** How a body is put on the wire: JSON, broken JSON text, or a non-JSON media type. */
const wire = (body: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 12, arbitrary: body.map((b) => ({ raw: JSON.stringify(b) ?? 'null', ctype: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(body, fc.nat()).map(([b, n]) => { const s = JSON.stringify(b) ?? ''; return { raw: s.slice(0, n % (s.length + 1)), ctype: 'application/json' }; }) },
    { weight: 1, arbitrary: anyText(200).map((raw) => ({ raw, ctype: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(body, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonp', 'text/html', 'application/octet-stream')).map(([b, ctype]) => ({ raw: JSON.stringify(b) ?? '', ctype })) },
  );

const headerExtras = fc.record(
  {
    'x-idempotency-key': fc.oneof(printable(300), fc.constantFrom('', ' ', 'a\tb', 'k'.repeat(256))),
    'x-request-id': fc.oneof(printable(140), fc.constantFrom('', 'ok-id')),
    'if-none-match': fc.oneof(printable(40), fc.constant('*')),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml'),
  },
  { requiredKeys: [] },
);

/** Mostly the valid key; sometimes garbage (the result must then be 401). */
const authArb = () => fc.oneof({ weight: 5, arbitrary: fc.constant(acct.apiKey) }, { weight: 1, arbitrary: fc.oneof(printable(80).map((s) => `Bearer ${s}`), fc.constant('')) });

// ---------------------------------------------------------------------------------------------- runner

interface FuzzRequest {
  method: string;
  path: string;
  raw?: string;
  ctype?: string;
  auth: string;
  headers: Record<string, string>;
}

async function send(client: HushClient, r: FuzzRequest): Promise<ApiResponse | null> {
  const opsClient = new HushClient(t.opsUrl, null);
  const headers: Record<string, string> = { ...r.headers };
  if (r.auth === acct.apiKey) headers.authorization = `Bearer ${r.auth}`;
  else if (r.auth !== '') headers.authorization = r.auth;
  if (r.ctype) headers['content-type'] = r.ctype;
  try {
    // HushClient asserts the universal invariants (no 5xx, shape, request id, no leaks).
    // The admin API is on the ops listener (docs/spec.md §4). Each admin request comes from a loopback address of
    // its own, so the throttle of wrong admin tokens (ops-listener.test.ts) does not answer the rest 429.
    if (r.path.startsWith('/admin/')) return await opsClient.request(r.method, r.path, { key: null, raw: r.raw, headers, from: randomLoopback() });
    return await client.request(r.method, r.path, { key: null, raw: r.raw, headers });
  } catch (e) {
    // fetch itself refuses some header values (e.g. leading/trailing whitespace rules); not a server case.
    if (e instanceof TypeError && /header|ByteString|Invalid/i.test(String(e.message))) return null;
    throw e;
  }
}

function check(res: ApiResponse | null, r: FuzzRequest) {
  if (!res) return;
  const ctx = `${r.method} ${r.path} ${(r.raw ?? '').slice(0, 200)} → ${res.status} ${res.text.slice(0, 300)}`;
  // The one 5xx the admin API may give: reconciliation not available on this deployment.
  assert.ok(res.status < 500 || (r.path === '/admin/v1/reconcile' && res.body?.error?.code === 'SERVICE_UNAVAILABLE'), ctx);
  if (r.auth !== acct.apiKey && r.path.startsWith(PREFIX) && res.status !== 404) assert.equal(res.status, 401, `a bad key must be refused: ${ctx}`);
  if (res.status >= 200 && res.status < 300 && r.method !== 'HEAD') assert.equal(res.body?.success, true, ctx);
}

async function fuzz(arb: fc.Arbitrary<FuzzRequest>) {
  const c = new HushClient(t.url, null);
  const statuses = new Map<number, number>();
  const codes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(arb, async (r) => {
      const res = await send(c, r);
      check(res, r);
      if (!res) return;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const code = res.status >= 400 ? (res.body?.error?.code ?? String(res.status)) : String(res.status);
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }),
    { numRuns: RUNS, endOnFailure: false },
  );
  return Object.assign(statuses, { codes });
}

const postTo = (path: string | fc.Arbitrary<string>, body: fc.Arbitrary<unknown>, method: fc.Arbitrary<string> = fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'GET', 'DELETE') })) =>
  fc.record({
    method,
    path: typeof path === 'string' ? fc.constant(path) : path,
    w: wire(body),
    auth: authArb(),
    headers: headerExtras,
  }).map(({ w, method: m, ...rest }) => ({ ...rest, method: m, ...(m === 'GET' || m === 'HEAD' ? {} : { raw: w.raw, ctype: w.ctype }) }) as FuzzRequest);

// ---------------------------------------------------------------------------------------------- properties

describe(`fuzzing every route (${RUNS} cases each)`, () => {
  test('POST /quote', async (ctx) => {
    const s = await fuzz(postTo(`${PREFIX}/quote`, fc.oneof({ weight: 4, arbitrary: quoteBody() }, { weight: 1, arbitrary: weird })));
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
    assert.ok((s.get(400) ?? 0) > 0, 'the fuzzer reached validation');
    assert.ok(s.codes.size >= 5, 'the fuzzer reached several different checks');
  });

  test('POST /order (mutated genuine quotes and random bodies)', async (ctx) => {
    const s = await fuzz(postTo(`${PREFIX}/order`, orderBody()));
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
    assert.equal(s.get(200) ?? 0, 0, 'no fuzzed order was accepted');
    assert.ok((s.get(409) ?? 0) + (s.get(404) ?? 0) > 0, 'the fuzzer reached the quote checks');
  });

  test('POST /order/{trackingId}/refresh', async (ctx) => {
    const path = trackingLike().map((id) => `${PREFIX}/order/${encodeURIComponent(id)}/refresh`);
    const s = await fuzz(postTo(path, fc.oneof(fc.constant(null), fc.constant({}), weird)));
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
  });

  test('POST /deposit', async (ctx) => {
    const s = await fuzz(postTo(`${PREFIX}/deposit`, depositBody()));
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
    assert.equal(s.get(200) ?? 0, 0);
  });

  test('GET /status/{trackingId} and GET /tokens (random paths, methods, query strings)', async (ctx) => {
    const path = fc.oneof(
      trackingLike().map((id) => `${PREFIX}/status/${encodeURIComponent(id)}`),
      fc.tuple(fc.constantFrom(`${PREFIX}/tokens`, `${PREFIX}/status/${realTrackingId}`), printable(30)).map(([p, q]) => `${p}?${encodeURIComponent(q)}=${encodeURIComponent(q)}`),
      printable(40).map((p) => `${PREFIX}/${encodeURIComponent(p)}`),
    );
    const s = await fuzz(postTo(path, weird, fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'PATCH')));
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
    assert.ok((s.get(200) ?? 0) > 0, 'some status/tokens requests succeeded');
  });

  test('/admin/v1 (with and without the admin token)', async (ctx) => {
    // Any text in an id, NULs included (PostgreSQL text cannot hold one).
    const segment = fc.oneof(printable(20), anyText(20), fc.constantFrom('\0', `${acct.id}\0`, '\u0001x'));
    const path = fc.oneof(
      fc.constantFrom('/admin/v1/accounts', '/admin/v1/reconcile', '/admin/v1/keys/abcdefghijkl', `/admin/v1/accounts/${acct.id}/keys`),
      segment.map((p) => `/admin/v1/accounts/${encodeURIComponent(p)}`),
      segment.map((p) => `/admin/v1/accounts/${encodeURIComponent(p)}/fee-recipients`),
      segment.map((p) => `/admin/v1/accounts/${encodeURIComponent(p)}/webhook`),
      segment.map((p) => `/admin/v1/accounts/${acct.id}/fee-recipients/${encodeURIComponent(p)}`),
      segment.map((p) => `/admin/v1/keys/${encodeURIComponent(p)}`),
    );
    const adminBody = fc.oneof(
      fc.record({ name: fieldValue(printable(120)), feeCapBps: weird, status: fieldValue(fc.constantFrom('active', 'suspended', 'x')), address: fieldValue(addressLike()), expiresAt: weird }, { requiredKeys: [] }),
      weird,
    );
    const arb = postTo(path, adminBody, fc.constantFrom('POST', 'PATCH', 'DELETE', 'GET')).chain((r) =>
      fc.constantFrom(t.adminToken!, 'wrong-token', '').map((tok) => ({ ...r, auth: tok === '' ? '' : `Bearer ${tok}` })),
    );
    const s = await fuzz(arb);
    ctx.diagnostic(`outcomes ${JSON.stringify(Object.fromEntries(s.codes))}`);
    assert.ok((s.get(401) ?? 0) > 0);
    // Straight at account creation and updates with the valid token: names and values of every kind.
    const direct = fc
      .tuple(
        fc.constantFrom('POST /admin/v1/accounts', `PATCH /admin/v1/accounts/${acct.id}`, `POST /admin/v1/accounts/${acct.id}/fee-recipients`, `POST /admin/v1/accounts/${acct.id}/keys`),
        fc.record({ name: fieldValue(anyText(120)), feeCapBps: fieldValue(fc.integer({ min: -5, max: 1005 })), address: fieldValue(addressLike()), expiresAt: fieldValue(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())) }, { requiredKeys: [] }),
      )
      .map(([route, body]) => {
        const [method, path] = route.split(' ') as [string, string];
        // Never suspend or re-cap the fuzzing account itself.
        const b = method === 'PATCH' ? { feeCapBps: 100 } : path.endsWith('/accounts') ? body : path.endsWith('/keys') ? (body.expiresAt === undefined ? {} : { expiresAt: body.expiresAt }) : { address: body.address };
        return { method, path, raw: JSON.stringify(b), ctype: 'application/json', auth: `Bearer ${t.adminToken}`, headers: {} } as FuzzRequest;
      });
    const d = await fuzz(direct);
    ctx.diagnostic(`direct outcomes ${JSON.stringify(Object.fromEntries(d.codes))}`);
    assert.ok((d.get(201) ?? 0) + (d.get(200) ?? 0) > 0, 'some admin operations succeeded');
    // The fuzzer never touched the partner account it was not given the id of… except its own keys route.
    expectOk(await acct.client.tokens());
  });

  test('no state change: no order created or moved, no idempotency record left behind', async () => {
    assert.equal(await storeState(), snapshot);
    // The admin API still answers normally after the fuzzing.
    expectOk(await admin.get('/admin/v1/accounts'));
  });
});
