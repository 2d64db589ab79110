/**
 * The answer to an HTTP parser failure (before there is a request) waits for the connection's rate-limit
 * bucket. Node reports the failure again for every chunk still arriving on the socket meanwhile, so with
 * a slow store the guard must keep it to one answer and one token; a store that never answers fails open.
 * A plain Node server with the answerer as its clientError handler: the store's latency is the subject.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createConnection } from 'node:net';
import type { AddressInfo } from 'node:net';
import { clientErrorAnswerer, type ConnectionBucket } from '../../src/api/error-handler.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

async function serve(bucket: ConnectionBucket): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('ok'));
  server.on('clientError', clientErrorAnswerer({ clock: systemClock, random: systemRandom }, bucket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends a malformed request, then more bytes every 20 ms until the server closes; returns all it read. */
function malformedThenMore(port: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n'));
    const more = setInterval(() => socket.writable && socket.write('X-More: junk\r\n'), 20);
    socket.setEncoding('utf8');
    socket.on('data', (d) => (data += d));
    socket.on('error', () => {}); // the server resets once it has answered
    socket.on('close', () => {
      clearInterval(more);
      resolve(data);
    });
  });
}

const answers = (data: string) => data.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];

describe('answers to HTTP parser failures', () => {
  test('a slow rate-limit store: one answer and one token per connection, however many chunks follow', async () => {
    let calls = 0;
    const slow: ConnectionBucket = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 150));
      return { limit: 10, remaining: 9, resetS: 60, refused: false };
    };
    const { server, port } = await serve(slow);
    try {
      const data = await malformedThenMore(port);
      assert.deepEqual(answers(data), ['HTTP/1.1 400'], data);
      assert.equal(calls, 1, 'one token taken for the connection');
      assert.match(data, /RateLimit-Remaining: 9\r\n/);
      assert.match(data, /"code":"INVALID_REQUEST"/);
    } finally {
      server.close();
    }
  });

  test('a store that never answers: answered within the wait without RateLimit-* (fails open)', async () => {
    const { server, port } = await serve(() => new Promise(() => {}));
    try {
      const started = performance.now();
      const data = await malformedThenMore(port);
      assert.deepEqual(answers(data), ['HTTP/1.1 400'], data);
      assert.doesNotMatch(data, /RateLimit-/);
      assert.ok(performance.now() - started < 2000, 'not held by the store');
    } finally {
      server.close();
    }
  });

  test('an empty bucket: 429 RATE_LIMITED with Retry-After', async () => {
    const { server, port } = await serve(async () => ({ limit: 10, remaining: 0, resetS: 7, refused: true }));
    try {
      const data = await malformedThenMore(port);
      assert.deepEqual(answers(data), ['HTTP/1.1 429'], data);
      assert.match(data, /Retry-After: 7\r\n/);
      assert.match(data, /"code":"RATE_LIMITED"/);
    } finally {
      server.close();
    }
  });
});
