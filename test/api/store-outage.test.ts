/**
 * The store going away under a running Hush (PostgreSQL behind a TCP proxy that is cut): requests that
 * need it answer 503 SERVICE_UNAVAILABLE with Retry-After (docs/spec.md §6), never 500, /readyz says which
 * dependency is down, the process keeps serving, and everything recovers when the store is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { POSTGRES_URL } from '../support/databases.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { pollUntil } from '../support/localnet.ts';
import { STORE_PROBE_MS } from '../../src/runtime/readiness.ts';
import { PREFIX, expectError, expectOk, postgresSkipReason, sleep, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';

/** Small, so the test can drain the client address's bucket quickly. */
const ANONYMOUS_RATE = 2;

describe('store outage (PostgreSQL behind a proxy that is cut)', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  let proxy: Awaited<ReturnType<typeof TcpProxy.start>>;
  let t: TestHush;
  let acct: TestAccount;

  before(async () => {
    const pgUrl = new URL(POSTGRES_URL);
    proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    const viaProxy = new URL(POSTGRES_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await startTestHush({ engine: 'postgres', env: { DATABASE_URL: viaProxy.href, HUSH_ANONYMOUS_RATE_LIMIT: String(ANONYMOUS_RATE) } });
    acct = await t.createAccount();
  });
  after(async () => {
    await proxy?.set('forward');
    await t?.close();
    await proxy?.close();
  });

  /** /readyz until it answers `status`: within two store probe periods (src/runtime/readiness.ts), and slack. */
  const readyzUntil = (status: number) =>
    pollUntil(async () => {
      const r = await t.ops.get('/readyz');
      return r.status === status ? r : null;
    }, { what: `/readyz ${status}`, timeoutMs: 2 * STORE_PROBE_MS + 2_000, intervalMs: 100 });

  test('503 SERVICE_UNAVAILABLE with Retry-After while the store is unreachable, never 500; it recovers', { timeout: 60_000 }, async () => {
    const unknown = 'trk_1111111111111111111111';
    expectError(await acct.client.status(unknown), 404, 'NOT_FOUND');
    const other = await t.createAccount(); // its key is not cached yet: authenticating it needs the store
    await proxy.set('refuse');
    await sleep(100);
    for (const [what, res] of [
      ['status of an order (a store read)', await acct.client.status(unknown)],
      ['a key not cached yet', await other.client.tokens()],
    ] as const) {
      const e = expectError(res, 503, 'SERVICE_UNAVAILABLE');
      assert.doesNotMatch(e.message, /ECONN|postgres|127\.0\.0\.1/i, `${what}: nothing internal in the message`);
      assert.equal(res.headers.get('retry-after'), '1', what);
    }
    // docs/spec.md §7: RateLimit-* on every response, also when the key could not be checked (the client address's
    // bucket), and a store outage stays a 503 even once that bucket is empty.
    let drained = false;
    for (let i = 0; i < 8 * ANONYMOUS_RATE && !drained; i++) {
      const res = await other.client.tokens();
      expectError(res, 503, 'SERVICE_UNAVAILABLE');
      for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.match(res.headers.get(h) ?? '', /^\d+$/, `${h} on a 503`);
      drained = res.headers.get('ratelimit-remaining') === '0';
    }
    assert.ok(drained, "the client address's bucket drains, and the answer stays 503");
    const past = await other.client.tokens();
    expectError(past, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(past.headers.get('retry-after'), '1');
    assert.equal(past.headers.get('ratelimit-remaining'), '0');
    // /readyz reads the last background store probe (one every 2 s, never one per request).
    const ready = await readyzUntil(503);
    // settlement and feePayer: as the last good probe read them.
    assert.deepEqual({ ...expectError(ready, 503, 'SERVICE_UNAVAILABLE').details, partnerPort: undefined, feePayer: undefined }, { store: 'unreachable', chain: 'ok', settlement: 'ok', screening: 'off', partnerPort: undefined, feePayer: undefined });
    // Back: the pool reconnects and the same requests are answered as before.
    await proxy.set('forward');
    for (let i = 0; (await acct.client.status(unknown)).status !== 404; i++) {
      assert.ok(i < 50, 'the store never came back');
      await sleep(100);
    }
    expectOk(await other.client.tokens());
    expectOk(await readyzUntil(200));
    assert.equal((await acct.client.get(`${PREFIX}/tokens`)).status, 200);
  });
});
