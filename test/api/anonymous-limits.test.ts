/**
 * docs/spec.md §7 puts RateLimit-* on every response. Partner-API answers that no key's bucket covers (failed
 * authentication 401/403, no such route 404, a malformed URL 400) take from a bucket per client address
 * (HUSH_ANONYMOUS_RATE_LIMIT, burst ×2); an empty one answers 429 RATE_LIMITED instead. X-Forwarded-For
 * names the client only when the connection comes from a trusted proxy (HUSH_TRUST_PROXY).
 *
 * Behind a trusted proxy the client is the header's, so a simulated Hush serves (test/support/sim-hush.ts:
 * inject from the proxy's address, 127.0.0.1; the buckets refill on its clock). Without one the bucket is the
 * connection's own address, and the HTTP parser refuses raw bytes before any route: that part is about real
 * sockets and stays on a listening Hush.
 */
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { updateAccount } from '../../src/store/accounts-store.ts';
import { seededRandom } from '../../src/support/random.ts';
import { expectError, expectOk, sleep, type ApiResponse } from '../support/api-responses.ts';
import { HushClient, PREFIX } from '../support/hush-client.ts';
import { startTestHush, type TestHush } from '../support/hush-server.ts';
import { startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';

const limitHeaders = (r: ApiResponse) => [r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('ratelimit-reset')];
/** A key no account holds. */
const unknownKey = (n: number) => generateApiKey(seededRandom(n)).apiKey;

describe('behind a trusted proxy (HUSH_TRUST_PROXY=127.0.0.1), HUSH_ANONYMOUS_RATE_LIMIT=1: a bucket of 2 per client address', () => {
  let h: SimHush;
  let good: SimAccount;
  let suspended: SimAccount;
  let clients = 0;
  /** A client address of its own, so every test starts with a full bucket. */
  const newClient = () => ({ 'x-forwarded-for': `198.51.100.${++clients}` });

  before(async () => {
    h = await startApiSim({ seed: 9, env: { HUSH_ANONYMOUS_RATE_LIMIT: '1', HUSH_TRUST_PROXY: '127.0.0.1', HUSH_RATE_LIMITS: 'quote=2,order=2,status=2,tokens=2' } });
    good = await h.createAccount({ rateLimits: null });
    suspended = await h.createAccount();
    await h.drive(updateAccount(h.db, suspended.id, { status: 'suspended' }));
  });
  after(() => closeSim(h));

  test('every refused or unroutable partner request carries RateLimit-* of its address', async () => {
    const anon = h.client(null);
    /** A request the client's HushClient would refuse to send as is (a malformed URL), injected bare. */
    const bare = async (url: string, headers: Record<string, string>) => {
      const res = await h.drive(h.hush.app!.inject({ method: 'GET', url, headers }));
      return { status: res.statusCode, headers: new Headers(res.headers as Record<string, string>) } as ApiResponse;
    };
    const cases: [string, number, (headers: Record<string, string>) => Promise<ApiResponse>][] = [
      ['no key', 401, (headers) => anon.tokens({ headers })],
      ['malformed key', 401, (headers) => good.client.tokens({ key: 'hush_nope', headers })],
      ['unknown key', 401, (headers) => good.client.tokens({ key: unknownKey(1), headers })],
      ['suspended account', 403, (headers) => suspended.client.tokens({ headers })],
      ['no such route', 404, (headers) => good.client.get(`${PREFIX}/nope`, { headers })],
      ['no such route, body too large', 404, (headers) => good.client.request('POST', `${PREFIX}/nope`, { raw: 'x'.repeat(70_000), headers })],
      ['HEAD of a partner GET route', 404, (headers) => good.client.request('HEAD', `${PREFIX}/tokens`, { headers })],
      ['malformed URL encoding', 400, (headers) => bare(`${PREFIX}/status/%E0%A4%A`, { authorization: `Bearer ${good.apiKey}`, ...headers })],
      // Fastify builds these requests without its proxy support: the address must still come from the proxy's header.
      ['malformed URL encoding, another client', 400, (headers) => bare(`${PREFIX}/status/%E0%A4%A`, headers)],
    ];
    for (const [what, status, send] of cases) {
      const r = await send(newClient());
      assert.equal(r.status, status, what);
      // A fresh bucket of 2 refilled at 1/s: 1 left, full again in 1 s.
      assert.deepEqual(limitHeaders(r), ['2', '1', '1'], what);
    }
    // An authenticated request on a route counts against its key, not against the address.
    const ok = await good.client.tokens({ headers: newClient() });
    expectOk(ok);
    assert.deepEqual(limitHeaders(ok).slice(0, 1), ['4'], 'the key\'s own bucket (tokens=2)');
  });

  test('an address that spends its bucket gets 429 RATE_LIMITED (Retry-After) instead; keys, other addresses and later requests are unaffected', async () => {
    const from = newClient();
    const badKey = unknownKey(2);
    // Every kind of refusal takes from the same bucket; the third request within a second finds it empty.
    assert.equal((await good.client.tokens({ key: badKey, headers: from })).status, 401);
    assert.equal((await good.client.get(`${PREFIX}/nope`, { headers: from })).status, 404);
    const limited = await good.client.tokens({ key: badKey, headers: from });
    expectError(limited, 429, 'RATE_LIMITED');
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.deepEqual(limitHeaders(limited).slice(0, 2), ['2', '0']);
    expectError(await h.client(null).get(`${PREFIX}/nope`, { headers: from }), 429, 'RATE_LIMITED');
    // A valid key from the same address is served from its own bucket; another address still gets its 401.
    expectOk(await good.client.tokens({ headers: from }));
    expectError(await good.client.tokens({ key: badKey, headers: newClient() }), 401, 'UNAUTHORIZED');
    await h.advance(1_100);
    expectError(await good.client.tokens({ key: badKey, headers: from }), 401, 'UNAUTHORIZED');
  });
});

describe('without a trusted proxy (default), HUSH_ANONYMOUS_RATE_LIMIT=1', () => {
  let t: TestHush;
  before(async () => {
    t = await startTestHush({ env: { HUSH_ANONYMOUS_RATE_LIMIT: '1' } });
  });
  after(async () => {
    await t?.close();
  });

  test('X-Forwarded-For is ignored: one connection address is one bucket, whatever the header claims', async () => {
    const client = new HushClient(t.url, null);
    // At once, so the bucket (1/s, burst 2) cannot refill between them however loaded the machine is.
    const answers = await Promise.all([1, 2, 3].map((i) => client.tokens({ headers: { 'x-forwarded-for': `203.0.113.${i}` } })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [401, 401, 429]);
  });

  test('requests the HTTP parser refuses carry RateLimit-* of a bucket per connection address; an empty one is 429 with Retry-After', async () => {
    /** One raw exchange: the status line and headers of the answer. */
    const raw = (request: string) =>
      new Promise<{ status: number; headers: Record<string, string>; body: any }>((resolve) => {
        const { hostname, port } = new URL(t.url);
        const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write(request));
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (d) => (data += d));
        socket.on('error', () => {});
        socket.on('close', () => {
          const [head = '', body = ''] = data.split('\r\n\r\n');
          const [statusLine = '', ...lines] = head.split('\r\n');
          resolve({ status: Number(statusLine.split(' ')[1]), headers: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])), body: JSON.parse(body) });
        });
      });
    const malformed = 'GET /transfer/v1/tokens HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n';
    const first = await raw(malformed);
    assert.equal(first.status, 400);
    assert.equal(first.body.error.code, 'INVALID_REQUEST');
    assert.deepEqual([first.headers['ratelimit-limit'], first.headers['ratelimit-remaining'], first.headers['ratelimit-reset']], ['2', '1', '1']);
    assert.deepEqual([first.headers['ratelimit-policy'], first.headers['ratelimit']], ['"default";q=2;w=2', '"default";r=1;t=1'], 'the IETF fields on a parser-made answer too');
    assert.equal((await raw(malformed)).headers['ratelimit-remaining'], '0');
    const limited = await raw(malformed);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
    assert.equal(limited.body.error.requestId, limited.headers['x-request-id']);
    assert.equal(limited.headers['retry-after'], '1');
    // A real server's buckets refill on the wall clock: a token comes back after a second.
    await sleep(1_100);
    assert.equal((await raw(malformed)).status, 400, 'a token later, a plain 400 again');
  });
});
