/**
 * The connection guard (src/api/connection-guard.ts) on its own, over real loopback sockets: connections from a
 * trusted proxy count in the total only; the ops app has a cap of its own, counted under `listener="ops"`; a
 * burst of refusals is one log line. connection-limits.test.ts runs the partner port of a whole Hush.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { guardConnections } from '../../src/api/connection-guard.ts';
import { createMetrics, type Metrics } from '../../src/api/metrics.ts';
import { buildOpsApp } from '../../src/api/ops-app.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { requestIds } from '../../src/api/server-options.ts';

/** Opens `n` connections from `source`, each sending `head`; resolves once all are connected. */
async function open(port: number, source: string, n: number, head: string): Promise<{ sockets: Socket[]; closed: () => number; allClosed: Promise<void> }> {
  let closed = 0;
  const sockets: Socket[] = [];
  const done: Promise<void>[] = [];
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve) => {
        const s = connect({ host: '127.0.0.1', port, localAddress: source });
        s.on('error', () => {});
        done.push(new Promise((r) => s.once('close', () => (closed++, r()))));
        s.once('connect', () => (s.write(head), resolve()));
        sockets.push(s);
      }),
    ),
  );
  return { sockets, closed: () => closed, allClosed: Promise.all(done).then(() => {}) };
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await ok())) {
    if (performance.now() > deadline) assert.fail(what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function value(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const m = await metrics.registry.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

const listen = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));

test('connections from a trusted proxy are not counted per address, only in the total; a burst of refusals is one log line', async () => {
  const metrics = createMetrics(async () => new Map());
  const server = createServer((_req, res) => res.end('ok'));
  const lines: string[] = [];
  guardConnections(server, { listener: 'partner', maxTotal: 100, maxPerAddress: 4, metrics: metrics.connections, exempt: (a) => a === '127.0.5.1', warn: (_f, msg) => lines.push(msg), clock: systemClock, requestId: requestIds(systemRandom) });
  const port = await listen(server);
  const head = 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ';
  const proxy = await open(port, '127.0.5.1', 20, head);
  const client = await open(port, '127.0.5.2', 20, head);
  try {
    await until('16 of the client refused', async () => (await value(metrics, 'hush_connections_refused_total', { reason: 'per_address' })) === 16 && client.closed() === 16);
    assert.equal(proxy.closed(), 0, 'the proxy kept all 20');
    assert.equal(await value(metrics, 'hush_connections_open', { listener: 'partner' }), 24);
    assert.deepEqual(lines.length, 1, 'one line at the first refusal; the rest wait for the end of the window');
    assert.match(lines[0]!, /^partner listener: 1 connection\(s\) refused \(per address 1, at the total cap 0\)/);
  } finally {
    for (const s of [...proxy.sockets, ...client.sockets]) s.destroy();
    await Promise.all([proxy.allClosed, client.allClosed]);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  // Closing the server writes what the window had gathered.
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /^partner listener: 15 connection\(s\) refused \(per address 15/);
});

test('the ops app has a cap of its own (listener="ops"), counted apart from the partner port', async () => {
  const metrics = createMetrics(async () => new Map());
  const app = await buildOpsApp({ ready: async () => ({ store: true, chain: true }), metrics, clock: systemClock, random: systemRandom }, { connections: { maxTotal: 8, maxPerAddress: 0 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  try {
    assert.equal(await value(metrics, 'hush_connections_limit', { listener: 'ops' }), 8);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    assert.equal(metrics.connections.listeners.get('ops')?.().limit, 8);
  } finally {
    await app.close();
  }
});
