/**
 * Shutdown under keep-alive traffic: during the drain grace every answer closes its connection and
 * /readyz is 503, so when the server finally closes no client has a request reset on an idle socket.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { test } from 'node:test';
import { startTestHush } from '../support/hush-server.ts';

function get(agent: Agent, url: string): Promise<{ status: number; connection: string | undefined; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, retryAfter: res.headers['retry-after'], body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('SIGTERM-style close with keep-alive clients: every request answered, each connection closed after an answer', async () => {
  const t = await startTestHush({ env: { HUSH_DRAIN_GRACE_MS: '1500' } });
  const CLIENTS = 16;
  const errors: string[] = [];
  let answered = 0;
  let closing: Promise<void> | null = null;
  const loops = Array.from({ length: CLIENTS }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (;;) {
        try {
          // A partner-port route no key or bucket guards (health and readiness are on the ops listener).
          const r = await get(agent, `${t.url}/transfer/v1/openapi.json`);
          answered++;
          assert.equal(r.status, 200);
          // Told to close: a careful client stops using the connection (and here, stops).
          if (r.connection === 'close') return true;
        } catch (e) {
          errors.push(String((e as Error).message));
          return false;
        }
        if (answered > CLIENTS * 3 && !closing) closing = t.close();
      }
    } finally {
      agent.destroy();
    }
  });
  // While the grace runs, readiness says no.
  await new Promise<void>((r) => {
    const wait = () => (closing ? r() : setTimeout(wait, 5));
    wait();
  });
  const probe = new Agent({ keepAlive: false });
  const ready = await get(probe, `${t.opsUrl}/readyz`);
  assert.equal(ready.status, 503);
  assert.deepEqual(JSON.parse(ready.body).error.details, { draining: true });
  assert.match(ready.retryAfter ?? '', /^[1-9]\d*$/, 'a 503 carries Retry-After (docs/spec.md §6)');
  const told = await Promise.all(loops);
  await closing;
  assert.deepEqual(errors, [], 'no request failed on a connection the server closed');
  assert.ok(told.every(Boolean), 'every client was told to close its connection');
});
