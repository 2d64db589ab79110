/**
 * Issue 50, finding 4: keys multiplied rate limits (one account with 10 self-created keys got 842 quotes in 3 s
 * against 99 with one key). docs/spec.md §7: the buckets are per account, shared by all its keys, the `account`
 * bucket too. Real Hush; the keys are issued in the store (the partner API caps active keys at 10).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueKey, startTestHush, type ApiResponse, type HushClient, type TestHush } from '../support/hush-server.ts';

let t: TestHush;

before(async () => {
  t = await startTestHush({ chain: false });
});
after(() => t?.close());

/** `n` requests per client, all at once; how many passed and how long the burst took. */
async function burst(clients: HushClient[], n: number, ask: (c: HushClient) => Promise<ApiResponse>) {
  const started = performance.now();
  const all = await Promise.all(clients.flatMap((c) => Array.from({ length: n }, () => ask(c))));
  return { all, passed: all.filter((r) => r.status !== 429).length, ms: performance.now() - started };
}

test('10 keys of one account share its buckets (tokens and account): together no more than one key alone; another account is untouched', { timeout: 30_000 }, async () => {
  // tokens 5/s → a bucket of 10; account 2/s → 4.
  const limits = { quote: 1_000, order: 1_000, status: 1_000, tokens: 5, account: 2 };
  const a = await t.createAccount({ rateLimits: limits });
  const b = await t.createAccount({ rateLimits: limits });
  const keys = [a.client];
  for (let i = 0; i < 9; i++) keys.push(a.client.withKey((await issueKey(t.db, a.id)).apiKey) as HushClient);

  const tokens = await burst(keys, 3, (c) => c.tokens());
  const refilled = Math.floor((5 * tokens.ms) / 1000);
  assert.ok(tokens.passed >= 10 && tokens.passed <= 10 + refilled, `${tokens.passed} of 30 passed a tokens bucket of 10 (+${refilled} refilled)`);
  for (const r of tokens.all.filter((x) => x.status === 429)) {
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    assert.equal(r.headers.get('ratelimit-limit'), '10', 'the account bucket refused it');
  }
  const account = await burst(keys, 1, (c) => c.get('/transfer/v1/account'));
  const accountRefilled = Math.floor((2 * account.ms) / 1000);
  assert.ok(account.passed >= 4 && account.passed <= 4 + accountRefilled, `${account.passed} of 10 passed an account bucket of 4 (+${accountRefilled})`);
  // Another account's buckets are its own.
  assert.equal((await b.client.tokens()).status, 200);
  assert.equal((await b.client.get('/transfer/v1/account')).status, 200);
});
