/**
 * Issue 50, findings 1–3, on the connection guard itself (src/api/connection-guard.ts) over real loopback sockets
 * and a plain Node server (the handler's timing is the test's): a connection over a cap gets an HTTP answer (429
 * over its address's cap, 503 over the total, Retry-After, `Connection: close`), a reset only when the room for
 * answers (the descriptors) is gone; a client that never reads its answer is dropped at the write timeout, and
 * near the cap before anything else; a request whose body never comes is not "serving" (it goes at the cap).
 * connection-limits.test.ts runs the partner port of a whole Hush.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { guardConnections, type ConnectionLimits } from '../../src/api/connection-guard.ts';
import { requestIds } from '../../src/api/server-options.ts';
import { createMetrics, type Metrics } from '../../src/api/metrics.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

/** 8 MB: far more than loopback's socket buffers hold for a client that never reads. */
const BIG = Buffer.alloc(8 * 1024 * 1024, 97);

async function serve(limits: ConnectionLimits, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const metrics = createMetrics(async () => new Map());
  const server = createServer(handler);
  const guard = guardConnections(server, { listener: 'partner', ...limits, metrics: metrics.connections, warn: () => {}, clock: systemClock, requestId: requestIds(systemRandom) });
  const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
  return {
    port,
    metrics,
    guard,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

interface Client {
  socket: Socket;
  /** Everything the server sent, once the connection closed; `error` when it was reset. */
  done: Promise<{ text: string; error: string | null }>;
  connected: Promise<void>;
}

/** A raw connection from `source` writing `head`; `read: false` never reads what comes back. */
function client(port: number, source: string, head: string, read = true): Client {
  const socket = connect({ host: '127.0.0.1', port, localAddress: source });
  let text = '';
  let error: string | null = null;
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const connected = new Promise<void>((r) => socket.once('connect', () => (socket.write(head), r())));
  if (read) socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  else socket.pause();
  return { socket, connected, done: new Promise((r) => socket.once('close', () => r({ text, error }))) };
}

async function value(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const m = await metrics.registry.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > deadline) assert.fail(what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const KEYED_GET = 'GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer hush_aaaaaaaaaaaa_x\r\n\r\n';

test('over its address cap a connection is answered 429 RATE_LIMITED (Retry-After, Connection: close), not reset', async () => {
  const held: ServerResponse[] = [];
  const s = await serve({ maxTotal: 100, maxPerAddress: 4 }, (_req, res) => void held.push(res));
  try {
    const clients = Array.from({ length: 30 }, () => client(s.port, '127.0.6.1', GET));
    await until('4 requests held by the handler', () => held.length === 4);
    const over = await Promise.all(clients.slice(4).map((c) => c.done));
    for (const r of over) {
      assert.equal(r.error, null, 'no reset');
      assert.match(r.text, /^HTTP\/1\.1 429 /);
      assert.match(r.text, /\r\nretry-after: 1\r\n/i);
      assert.match(r.text, /\r\nconnection: close\r\n/i);
      assert.equal(JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).error.code, 'RATE_LIMITED');
    }
    assert.equal(await value(s.metrics, 'hush_connections_refused_total', { reason: 'per_address' }), 26);
    assert.equal(await value(s.metrics, 'hush_connections_refused_total', { reason: 'reset' }), 0);
    for (const res of held) res.end('ok');
    for (const r of await Promise.all(clients.slice(0, 4).map((c) => (c.socket.end(), c.done)))) assert.match(r.text, /^HTTP\/1\.1 200 /);
  } finally {
    await s.close();
  }
});

test('at the total cap with every request with the application, the next is answered 503 (keyed ones counted: readiness); with no room for answers, reset', async () => {
  const held: ServerResponse[] = [];
  const s = await serve({ maxTotal: 8, maxPerAddress: 0, maxAnswering: 2 }, (_req, res) => void held.push(res));
  try {
    const busy = Array.from({ length: 8 }, () => client(s.port, '127.0.6.2', GET));
    await until('8 requests held', () => held.length === 8);
    const keyed = client(s.port, '127.0.6.3', KEYED_GET);
    const r = await keyed.done;
    assert.equal(r.error, null);
    assert.match(r.text, /^HTTP\/1\.1 503 /);
    assert.match(r.text, /\r\nretry-after: 2\r\n/i);
    assert.equal(JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).error.code, 'SERVICE_UNAVAILABLE');
    const status = s.guard.status();
    assert.deepEqual([status.open, status.limit, status.saturated, status.keyedRefused], [8, 8, true, 1]);
    assert.ok(status.lastKeyedRefusedAt !== null && Date.now() - status.lastKeyedRefusedAt < 5_000);
    assert.equal(await value(s.metrics, 'hush_connections_keyed_refused_total', { listener: 'partner' }), 1);
    assert.equal(await value(s.metrics, 'hush_connections_saturation_ratio', { listener: 'partner' }), 1);
    // Two connections that never ask take the room for answers: the next is reset, and counted so.
    const silent = [client(s.port, '127.0.6.4', ''), client(s.port, '127.0.6.4', '')];
    await Promise.all(silent.map((c) => c.connected));
    await until('2 being answered', () => s.guard.status().answering === 2);
    const reset = await client(s.port, '127.0.6.5', GET).done;
    assert.equal(reset.text, '', 'nothing was answered');
    assert.equal(await value(s.metrics, 'hush_connections_refused_total', { reason: 'reset' }), 1);
    assert.ok(s.guard.status().lastResetAt !== null);
    // A connection over a cap that never asks is closed after ANSWER_WAIT_MS.
    await Promise.all(silent.map((c) => c.done));
    for (const res of held) res.end('ok');
    await Promise.all(busy.map((c) => (c.socket.end(), c.done)));
  } finally {
    await s.close();
  }
});

test('a client that never reads its answer: dropped at the write timeout; at the cap it is evicted first, and a new client is served', async () => {
  const s = await serve({ maxTotal: 6, maxPerAddress: 0, writeTimeoutMs: 1500 }, (req, res) => (req.url === '/big' ? res.end(BIG) : res.end('ok')));
  try {
    // Cap full of clients that asked for 8 MB and read nothing.
    const stuck = Array.from({ length: 6 }, () => client(s.port, '127.0.6.6', 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n', false));
    await Promise.all(stuck.map((c) => c.connected));
    await until('6 open', () => s.guard.status().open === 6);
    await new Promise((r) => setTimeout(r, 300));
    // A new client: room is made from an unread answer, not refused.
    const fresh = await client(s.port, '127.0.6.7', 'GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').done;
    assert.match(fresh.text, /^HTTP\/1\.1 200 [\s\S]*ok$/);
    assert.ok((await value(s.metrics, 'hush_connections_closed_early_total', { reason: 'unread' })) >= 1);
    // The rest: closed once their answer has not gone out within the write timeout (a paused client never
    // reads the close, so the server's count says it).
    await until('the other 5 closed at the write timeout', async () => (await value(s.metrics, 'hush_connections_closed_early_total', { reason: 'write_timeout' })) === 5);
    assert.equal(s.guard.status().open, 0);
    for (const c of stuck) c.socket.destroy();
    // A client that reads gets all 8 MB.
    const reader = await client(s.port, '127.0.6.8', 'GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').done;
    assert.ok(reader.text.length > BIG.length, `${reader.text.length} bytes read`);
  } finally {
    await s.close();
  }
});

test('a request whose body never comes does not hold its place at the cap: it goes before a new client is refused', async () => {
  const s = await serve({ maxTotal: 4, maxPerAddress: 0 }, (req, res) => req.resume().on('end', () => res.end('ok')));
  try {
    const head = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n';
    const slow = Array.from({ length: 4 }, () => client(s.port, '127.0.6.9', head, false));
    await Promise.all(slow.map((c) => c.connected));
    await until('4 open', () => s.guard.status().open === 4);
    await new Promise((r) => setTimeout(r, 200));
    const fresh = await client(s.port, '127.0.6.10', KEYED_GET.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')).done;
    assert.match(fresh.text, /^HTTP\/1\.1 200 /);
    assert.ok((await value(s.metrics, 'hush_connections_closed_early_total', { reason: 'unfinished' })) >= 1);
    for (const c of slow) c.socket.destroy();
  } finally {
    await s.close();
  }
});
