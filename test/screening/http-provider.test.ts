/**
 * docs/spec.md §12 HTTP provider against a local fake risk API answering recorded JSON: blocked, clear,
 * a bad answer and a timeout (errors, never clears); answers cached for the TTL, errors not. No real network.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProviderScreening } from '../../src/screening/cached-screening.ts';
import { HttpProvider } from '../../src/screening/http-provider.ts';
import { systemClock } from '../../src/support/clock.ts';
import { readingClock } from '../support/manual-clock.ts';

const BLOCKED = '7Np41oeYqPefeNQEHSv1UDhYrehxin3NStELsSKCT4K2';
const CLEAR = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy';
const MALFORMED = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const SLOW = '3Mc6vR1nHQXM1uMFw1Nn5sVdjY3GdRz7q5mVuY2dvYUE';
/**
 * The provider's timeout here: long enough that a loaded machine's first request to the fake (which answers
 * at once) is in (one took over 150 ms beside the suite), short beside the slow answer's five times it.
 */
const TIMEOUT_MS = 1_000;
/** Recorded answers, in the shape common address-risk APIs give. */
const ANSWERS: Record<string, unknown> = {
  [BLOCKED]: { address: BLOCKED, risk: 'severe', blocked: true, reason: 'sanctions' },
  [CLEAR]: { address: CLEAR, risk: 'low', blocked: false },
  [MALFORMED]: { address: MALFORMED, risk: 'low' },
};

let server: Server;
let base = '';
const asked: string[] = [];
const keys: (string | undefined)[] = [];
before(async () => {
  server = createServer((req, res) => {
    const address = decodeURIComponent((req.url ?? '').replace('/v1/address/', ''));
    asked.push(address);
    keys.push(req.headers['x-api-key'] as string | undefined);
    if (address === SLOW) return void setTimeout(() => res.end('{}'), 5 * TIMEOUT_MS).unref();
    const answer = ANSWERS[address];
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(answer ?? { error: 'unknown' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

describe('screening: HTTP provider', () => {
  it('blocked, clear, a malformed answer, an unknown status and a timeout', async () => {
    const http = new HttpProvider(base, 'k-123', systemClock, TIMEOUT_MS);
    const b = await http.check(BLOCKED);
    assert.deepEqual(b, { result: 'blocked', address: BLOCKED, reason: 'sanctions', list: http.name, version: http.name });
    assert.deepEqual(await http.check(CLEAR), { result: 'clear' });
    assert.equal((await http.check(MALFORMED)).result, 'error');
    assert.equal((await http.check('11111111111111111111111111111112')).result, 'error');
    const t0 = Date.now();
    const slow = await http.check(SLOW);
    assert.equal(slow.result, 'error');
    assert.match(slow.result === 'error' ? slow.reason : '', new RegExp(`no answer within ${TIMEOUT_MS} ms`));
    assert.ok(Date.now() - t0 < 4 * TIMEOUT_MS, 'the timeout bounds the wait');
    assert.equal(keys[0], 'k-123', 'the key goes in X-API-Key');
  });

  it('the port caches answers for the TTL (errors are asked again) and reports the first blocked, else the first error', async () => {
    let now = 1_000;
    const screening = new ProviderScreening(null, new HttpProvider(base, undefined, systemClock, TIMEOUT_MS), () => ({ enabled: true, lists: [], http: 'x', onError: 'hold' }), readingClock(() => now), 60_000);
    asked.length = 0;
    assert.deepEqual(await screening.check([CLEAR]), { result: 'clear' });
    assert.deepEqual(await screening.check([CLEAR]), { result: 'clear' });
    assert.deepEqual(asked, [CLEAR], 'the second check is answered from the cache');
    now += 60_001;
    await screening.check([CLEAR]);
    assert.deepEqual(asked, [CLEAR, CLEAR], 'past the TTL the provider is asked again');
    assert.equal((await screening.check([CLEAR, SLOW, BLOCKED])).result, 'blocked');
    assert.equal((await screening.check([CLEAR, SLOW])).result, 'error');
    assert.equal(asked.filter((a) => a === SLOW).length, 2, 'an error is not cached');
  });
});
