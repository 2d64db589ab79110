/**
 * A request must arrive whole within HUSH_REQUEST_TIMEOUT_MS: a body (or headers) trickling in a byte at a
 * time is answered 400 INVALID_REQUEST and its connection closed, instead of holding it open forever with
 * no key needed. The worker's ops app takes request ids as the partner API does (docs/spec.md §2).
 */
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildOpsApp } from '../../src/api/ops-app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { sleep, startTestHush, type TestHush } from '../support/hush-server.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const TIMEOUT_MS = 1000;

/** Writes `head`, then one more byte every 200 ms; resolves with what the server said and when it closed. */
function trickle(port: number, head: string, byte: string): Promise<{ data: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let data = '';
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(head));
    const more = setInterval(() => socket.writable && socket.write(byte), 200);
    // Whatever happens, the test ends: a server that never closes shows as closedAfterMs ≥ 15 s.
    const giveUp = setTimeout(() => socket.destroy(), 15_000);
    socket.setEncoding('utf8');
    socket.on('data', (d) => (data += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(more);
      clearTimeout(giveUp);
      resolve({ data, closedAfterMs: performance.now() - started });
    });
  });
}

describe('request deadline', () => {
  let t: TestHush;
  before(async () => {
    t = await startTestHush({ env: { HUSH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(async () => t?.close());

  const port = () => Number(new URL(t.url).port);

  test('a body that trickles in is refused with 400 INVALID_REQUEST (request timeout), and the connection closed', async () => {
    // An unrouted path: no key is needed to be read to the end.
    const { data, closedAfterMs } = await trickle(port(), 'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 65000\r\n\r\n', ' ');
    assert.match(data, /^HTTP\/1\.1 400 /, data);
    assert.match(data, /"code":"INVALID_REQUEST"/);
    assert.match(data, /"reason":"request timeout"/);
    assert.match(data, /X-Request-Id: [0-9a-f-]{36}\r\n/i);
    assert.ok(closedAfterMs >= TIMEOUT_MS, `not before the deadline (${closedAfterMs.toFixed(0)} ms)`);
    assert.ok(closedAfterMs < 10_000, `closed by the server, not by the test giving up (${closedAfterMs.toFixed(0)} ms)`);
  });

  test('headers that trickle in are refused the same way', async () => {
    const { data, closedAfterMs } = await trickle(port(), 'GET /transfer/v1/tokens HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a');
    assert.match(data, /^HTTP\/1\.1 400 /, data);
    assert.match(data, /"reason":"request timeout"/);
    assert.ok(closedAfterMs < 10_000, `closed by the server (${closedAfterMs.toFixed(0)} ms)`);
  });

  test('a request that arrives in time is served as usual on the same server', async () => {
    await sleep(10);
    const r = await fetch(`${t.url}/transfer/v1/openapi.json`);
    assert.equal(r.status, 200);
  });
});

describe('ops app request ids', () => {
  test('a well-formed X-Request-Id is echoed, anything else replaced by a fresh UUID', async () => {
    const app = await buildOpsApp({ ready: async () => ({ store: true, chain: true }), metrics: createMetrics(async () => new Map()), clock: systemClock, random: systemRandom });
    try {
      const echoed = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
      assert.equal(echoed.headers['x-request-id'], 'abc-123');
      const replaced = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\u00e9' } });
      assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const fresh = await app.inject({ method: 'GET', url: '/healthz' });
      assert.notEqual(fresh.headers['x-request-id'], replaced.headers['x-request-id']);
    } finally {
      await app.close();
    }
  });
});

describe('shutdown with a request still trickling in', () => {
  test('the close waits at most HUSH_REQUEST_TIMEOUT_MS for it, then cuts the connection (Node stops its deadlines once closing)', async () => {
    const t = await startTestHush({ env: { HUSH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
    const socket = trickle(Number(new URL(t.url).port), 'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 65000\r\n\r\n', ' ');
    await sleep(300);
    const started = performance.now();
    const closed = await Promise.race([t.close().then(() => true), sleep(15_000).then(() => false)]);
    assert.ok(closed, 'the shutdown finished');
    assert.ok(performance.now() - started < 10_000);
    await socket;
  });
});
