/**
 * Issue 50, findings 1–2: the API reference's assets (the 1.68 MB swagger UI bundle, the 340 KB openapi.json) were
 * served without a key, without a rate limit, uncompressed, serialized per request. Now each is one precomputed
 * buffer, gzipped when the client takes it (with an ETag, 304 on a match), and every request takes a token from
 * the client address's anonymous bucket (429 with Retry-After once empty). A simulated Hush
 * (test/support/sim-hush.ts), reached by inject from chosen client addresses so each check has a bucket of its
 * own, and the bucket's refill is its clock's. That a real connection's own address names the bucket is
 * test/api/anonymous-limits.test.ts's, on a listening Hush.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip } from '../../src/api/reference-assets.ts';
import { startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;
before(async () => {
  // 5/s, burst 10, per address.
  h = await startApiSim({ seed: 50, env: { HUSH_ANONYMOUS_RATE_LIMIT: '5' } });
});
after(() => closeSim(h));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** A GET of the partner port from `source` (the connection's address), its body as the bytes sent. */
async function get(source: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await h.drive(h.hush.app!.inject({ method: 'GET', url: path, headers, remoteAddress: source }));
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
}

const BUNDLE = readFileSync(join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static', 'swagger-ui-bundle.js'));

test('openapi.json and the UI bundle: gzipped when asked (a fraction of the size), the same bytes as plain, an ETag answered 304', async () => {
  for (const [path, expected] of [
    ['/transfer/v1/openapi.json', null],
    ['/docs/json', null],
    ['/docs/static/swagger-ui-bundle.js', BUNDLE],
  ] as const) {
    const source = `127.0.7.${path.length}`;
    const plain = await get(source, path, { 'accept-encoding': 'identity' });
    const zipped = await get(source, path, { 'accept-encoding': 'gzip, br' });
    assert.equal(plain.status, 200, path);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(zipped.headers['content-encoding'], 'gzip', path);
    assert.equal(zipped.headers.vary, 'accept-encoding');
    assert.ok(zipped.body.length < plain.body.length / 3, `${path}: ${zipped.body.length} of ${plain.body.length} bytes`);
    assert.deepEqual(gunzipSync(zipped.body), plain.body);
    if (expected) assert.deepEqual(plain.body, expected);
    else assert.ok(Object.keys(JSON.parse(plain.body.toString()).paths).includes('/transfer/v1/quote'));
    const etag = String(zipped.headers.etag);
    assert.notEqual(etag, String(plain.headers.etag), 'each representation has its own tag');
    assert.equal((await get(source, path, { 'accept-encoding': 'gzip', 'if-none-match': etag })).status, 304);
    assert.equal((await get(source, path, { 'accept-encoding': 'identity', 'if-none-match': etag })).status, 200, 'the gzip tag does not validate the plain body');
    assert.equal((await get(source, path, { 'accept-encoding': 'identity', 'if-none-match': `"other", W/${String(plain.headers.etag)}` })).status, 304, 'a list, and a weakened tag, compared weakly');
    assert.equal((await get(source, path, { 'if-none-match': '*' })).status, 304);
    assert.match(String(plain.headers['ratelimit-limit']), /^\d+$/, 'the anonymous bucket’s RateLimit-* fields');
  }
});

test('every request for the reference takes from the address’s anonymous bucket: past the burst, 429 RATE_LIMITED with Retry-After', async () => {
  const started = h.now();
  // Started in one synchronous loop: the twenty injects reach the app in the same turn.
  const answers = await Promise.all(Array.from({ length: 20 }, () => get('127.0.7.200', '/docs/static/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' })));
  const ms = h.now() - started;
  const limited = answers.filter((a) => a.status === 429);
  // The bucket holds 10 and refills at 5/s for the simulated time the 20 took to answer: exactly that many are
  // served, the rest refused.
  const allowed = Math.min(20, 10 + Math.floor((5 * ms) / 1000));
  assert.ok(limited.length > 0, `${limited.length} of 20 limited in ${ms} simulated ms`);
  assert.equal(20 - limited.length, allowed, `${limited.length} of 20 limited in ${ms} simulated ms (burst 10, 5/s: ${allowed} served)`);
  for (const a of limited) {
    assert.ok(Number(a.headers['retry-after']) >= 1);
    assert.equal(JSON.parse(a.body.toString()).error.code, 'RATE_LIMITED');
  }
  // Another address has its own bucket.
  assert.equal((await get('127.0.7.201', '/transfer/v1/openapi.json')).status, 200);
  // And this one's refills on the clock: after a second, five more.
  await h.advance(1_000);
  const later = await Promise.all(Array.from({ length: 6 }, () => get('127.0.7.200', '/transfer/v1/openapi.json')));
  assert.deepEqual(later.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 429], 'a second refills five tokens');
});

test('Accept-Encoding: gzip or * with a weight above 0; none at all gets the plain body', () => {
  for (const yes of ['gzip', 'br, gzip', 'gzip;q=0.5', '*', 'deflate, *;q=0.1']) assert.equal(acceptsGzip(yes), true, yes);
  // None at all: the plain body (curl, test injectors); an empty one: identity only.
  for (const no of [undefined, '', 'br', 'gzip;q=0', 'identity', 'gzip; q=0.000']) assert.equal(acceptsGzip(no), false, String(no));
});
