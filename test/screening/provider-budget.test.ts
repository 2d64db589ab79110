/**
 * Issue 50, finding 4: a flood of quotes from one account (10 keys) paid 1,684 risk-provider calls in 3 s. The calls
 * an account's quotes cause come from a budget per account (HUSH_SCREENING_RATE_LIMIT, burst ×2): past it the
 * quote is RATE_LIMITED with Retry-After; answers from the cache are free; another account has its own; the
 * settlement's checks (no account) are never refused. A local fake risk API counting its calls; injected clock.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ProviderScreening } from '../../src/screening/cached-screening.ts';
import { HttpProvider } from '../../src/screening/http-provider.ts';
import { addressFromBytes } from '../../src/domain/address-codec.ts';
import { isHushError } from '../../src/domain/errors.ts';
import { systemClock } from '../../src/support/clock.ts';
import { readingClock } from '../support/manual-clock.ts';

let server: Server;
let calls = 0;
let url = '';
before(async () => {
  server = createServer((_req, res) => (calls++, res.writeHead(200, { 'content-type': 'application/json' }).end('{"risk":"low","blocked":false}')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const fresh = () => addressFromBytes(randomBytes(32));

test('an account’s quotes cause at most its budget of provider calls (5/s, burst 10); cache hits are free; others are not affected', async () => {
  let now = 1_000_000;
  const describe = () => ({ enabled: true, lists: [], http: 'fake', onError: 'hold' as const });
  const screening = new ProviderScreening(null, new HttpProvider(url, 'k', systemClock), describe, readingClock(() => now), 600_000, 5);
  const seen: string[] = [];
  let refused = 0;
  for (let i = 0; i < 30; i++) {
    const a = fresh();
    try {
      assert.equal((await screening.check([a], { account: 'acc_a' })).result, 'clear');
      seen.push(a);
    } catch (e) {
      assert.ok(isHushError(e, 'RATE_LIMITED'), String(e));
      assert.ok(e.retryAfterSeconds !== undefined && e.retryAfterSeconds >= 1);
      refused++;
    }
  }
  assert.equal(calls, 10, 'the burst, then nothing');
  assert.equal(refused, 20);
  // Cached answers cost nothing, whatever the budget.
  for (const a of seen) assert.equal((await screening.check([a], { account: 'acc_a' })).result, 'clear');
  assert.equal(calls, 10);
  // Another account, and the settlement (no account), are not held back by acc_a's flood.
  assert.equal((await screening.check([fresh()], { account: 'acc_b' })).result, 'clear');
  for (let i = 0; i < 12; i++) await screening.check([fresh()]);
  assert.equal(calls, 10 + 1 + 12);
  // One second later: 5 more.
  now += 1000;
  let passed = 0;
  for (let i = 0; i < 8; i++) passed += await screening.check([fresh()], { account: 'acc_a' }).then(() => 1, () => 0);
  assert.equal(passed, 5);
});
