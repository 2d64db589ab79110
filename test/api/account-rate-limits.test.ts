/**
 * Keys must not multiply rate limits (one account with 10 self-created keys once got 842 quotes in 3 s against
 * 99 with one key). docs/spec.md §7: the buckets are per account, shared by all its keys, the `account` bucket
 * too. A simulated Hush (test/support/sim-hush.ts): the buckets run on its clock, so what refilled during a
 * burst is known exactly. The keys are issued in the store (the partner API caps active keys at 10).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { burstOf, issueSimKey, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;

before(async () => {
  h = await startApiSim({ seed: 50 });
});
after(() => closeSim(h));

test('10 keys of one account share its buckets (tokens and account): together no more than one key alone; another account is untouched', async () => {
  // tokens 5/s → a bucket of 10; account 2/s → 4.
  const limits = { quote: 1_000, order: 1_000, status: 1_000, tokens: 5, account: 2 };
  const a = await h.createAccount({ rateLimits: limits });
  const b = await h.createAccount({ rateLimits: limits });
  const keys = [a.client];
  for (let i = 0; i < 9; i++) keys.push(await issueSimKey(h, a.id));

  const tokens = await burstOf(h, keys, 3, (c) => c.tokens());
  const refilled = Math.floor((5 * tokens.ms) / 1000);
  assert.ok(tokens.passed >= 10 && tokens.passed <= 10 + refilled, `${tokens.passed} of 30 passed a tokens bucket of 10 (+${refilled} refilled)`);
  for (const r of tokens.all.filter((x) => x.status === 429)) {
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    assert.equal(r.headers.get('ratelimit-limit'), '10', 'the account bucket refused it');
  }
  const account = await burstOf(h, keys, 1, (c) => c.get('/transfer/v1/account'));
  const accountRefilled = Math.floor((2 * account.ms) / 1000);
  assert.ok(account.passed >= 4 && account.passed <= 4 + accountRefilled, `${account.passed} of 10 passed an account bucket of 4 (+${accountRefilled})`);
  // Another account's buckets are its own.
  assert.equal((await b.client.tokens()).status, 200);
  assert.equal((await b.client.get('/transfer/v1/account')).status, 200);
});
