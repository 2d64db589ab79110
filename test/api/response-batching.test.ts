/**
 * batchResponseWrites: an answer is written at the end of the event-loop turn that finished it (with the
 * others that turn finished), never lost, never mixed up with another connection's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { batchResponseWrites } from '../../src/api/response-batching.ts';

describe('batchResponseWrites', () => {
  let app: FastifyInstance;
  let url: string;
  const events: string[] = [];

  before(async () => {
    app = Fastify({ logger: false });
    batchResponseWrites(app);
    app.get('/order-of-events', async (_request, reply) => {
      const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
      (reply.raw as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
        events.push('written');
        return end(...args);
      };
      setImmediate(() => events.push('turn ended'));
      events.push('handled');
      return { ok: true };
    });
    app.get<{ Params: { n: string } }>('/echo/:n', async (request) => ({ n: Number(request.params.n) }));
    app.get('/fails', async () => {
      throw Object.assign(new Error('nope'), { statusCode: 409 });
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app?.close();
  });

  test('the answer is written when the turn that finished it ends, not as soon as it is ready', async () => {
    events.length = 0;
    const r = await fetch(`${url}/order-of-events`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { ok: true });
    assert.deepEqual(events, ['handled', 'turn ended', 'written']);
  });

  test('many concurrent requests on their own connections each get their own answer, errors included', async () => {
    const n = 60;
    const answers = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        if (i % 10 === 9) {
          const r = await fetch(`${url}/fails`, { headers: { connection: 'close' } });
          return { status: r.status, body: (await r.json()) as unknown };
        }
        const r = await fetch(`${url}/echo/${i}`, { headers: { connection: 'close' } });
        return { status: r.status, body: (await r.json()) as unknown };
      }),
    );
    answers.forEach((a, i) => {
      if (i % 10 === 9) assert.equal(a.status, 409, `request ${i}`);
      else assert.deepEqual(a, { status: 200, body: { n: i } }, `request ${i}`);
    });
  });

  test('injected requests (no socket) are answered too', async () => {
    const r = await app.inject({ method: 'GET', url: '/echo/7' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { n: 7 });
  });
});
