/**
 * A partner manages its own keys over the partner API (docs/spec.md §4, "Self-service"), against a real,
 * listening Hush: GET /transfer/v1/account shows the caller's account and nothing of another's, never a
 * secret; a partner rotates its key (create, switch, revoke: the new key works, the revoked one is 401);
 * another account's key id is 404 like an unknown one; the last active key is refused LAST_ACTIVE_KEY, also
 * when two requests revoke the only two keys at once; 10 active keys at most (TOO_MANY_KEYS), and old
 * revoked keys are pruned to 20; the account bucket is tight (1/s, burst 2) and separate; every change is
 * logged with the key that made it. The webhook half is in self-service-webhook.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeApiKey } from '../../src/store/accounts-store.ts';
import { expectError, expectOk, issueKey, registerSecret, secretOf, startTestHush, type HushClient, type TestHush } from '../support/hush-server.ts';

const ACCOUNT = '/transfer/v1/account';
const KEYS = `${ACCOUNT}/keys`;
const KEY_FIELDS = ['active', 'createdAt', 'current', 'expiresAt', 'keyId', 'revokedAt'];

let t: TestHush;
const logs: string[] = [];

before(async () => {
  t = await startTestHush({ chain: false, apiLog: (line) => void logs.push(line) });
});
after(() => t?.close());

/** POST /account/keys with `client`: the new key (registered as a secret from now on) and a client with it. */
async function createKey(client: HushClient, body: unknown = {}) {
  const created = expectOk(await client.post(KEYS, body), 201);
  registerSecret(secretOf(created.apiKey));
  return { ...created, client: client.withKey(created.apiKey) as HushClient };
}

const revoke = (client: HushClient, keyId: string) => client.request('DELETE', `${KEYS}/${keyId}`);
const activeKeys = async (client: HushClient) => (expectOk(await client.get(ACCOUNT)).account.keys as { keyId: string; active: boolean }[]).filter((k) => k.active).map((k) => k.keyId);

describe('self-service: the account and its keys', () => {
  test('GET /account: the caller\'s own account, its keys (which one is calling), rates; no secret', async () => {
    const acct = await t.createAccount({ feeCapBps: 70, feeRecipients: 2, rateLimits: { quote: 7, account: 100 } });
    const other = await t.createAccount();
    const { account } = expectOk(await acct.client.get(ACCOUNT));
    assert.deepEqual(Object.keys(account).sort(), ['accountId', 'feeCapBps', 'feeRecipients', 'keys', 'maxActiveKeys', 'name', 'rateLimits', 'webhook']);
    assert.equal(account.accountId, acct.id);
    assert.equal(account.feeCapBps, 70);
    assert.deepEqual([...account.feeRecipients].sort(), [...acct.feeRecipients].sort());
    assert.equal(account.webhook, null);
    assert.equal(account.maxActiveKeys, 10);
    // The account's own rates where it has them, the operator's defaults for the rest.
    assert.deepEqual(account.rateLimits, { quote: 7, order: 5, status: 50, tokens: 50, account: 100 });
    assert.equal(account.keys.length, 1);
    assert.deepEqual(Object.keys(account.keys[0]).sort(), KEY_FIELDS);
    assert.deepEqual({ ...account.keys[0], createdAt: undefined }, { keyId: acct.keyId, createdAt: undefined, expiresAt: null, revokedAt: null, active: true, current: true });
    const theirs = expectOk(await other.client.get(ACCOUNT)).account;
    assert.equal(theirs.accountId, other.id);
    assert.ok(!JSON.stringify(theirs).includes(acct.keyId), "another account's keys are not listed");
  });

  test('rotation: create a key, switch to it, revoke the old one; the new key works, the old one is 401', async () => {
    const acct = await t.createAccount();
    const fresh = await createKey(acct.client);
    assert.match(fresh.apiKey, /^hush_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(Object.keys(fresh.key).sort(), KEY_FIELDS);
    assert.equal(fresh.key.keyId, fresh.apiKey.slice(5, 17));
    assert.deepEqual([fresh.key.active, fresh.key.current, fresh.key.revokedAt, fresh.key.expiresAt], [true, false, null, null]);
    // The new key is the caller now; it revokes the old one.
    const listed = expectOk(await fresh.client.get(ACCOUNT)).account.keys;
    assert.deepEqual(listed.map((k: { keyId: string; current: boolean }) => [k.keyId, k.current]), [[acct.keyId, false], [fresh.key.keyId, true]]);
    const revoked = expectOk(await revoke(fresh.client, acct.keyId)).key;
    assert.deepEqual([revoked.keyId, revoked.active, revoked.current], [acct.keyId, false, false]);
    assert.ok(Date.parse(revoked.revokedAt) <= Date.now());
    expectError(await acct.client.get(ACCOUNT), 401, 'UNAUTHORIZED');
    expectError(await acct.client.tokens(), 401, 'UNAUTHORIZED');
    expectOk(await fresh.client.tokens());
    // Revoking it again answers it unchanged.
    assert.equal(expectOk(await revoke(fresh.client, acct.keyId)).key.revokedAt, revoked.revokedAt);
    // A key made to expire: its lifetime as asked; bounds are checked, and nothing is created.
    const hour = await createKey(fresh.client, { expiresInSeconds: 3600 });
    const lifetime = Date.parse(hour.key.expiresAt) - Date.parse(hour.key.createdAt);
    assert.ok(Math.abs(lifetime - 3_600_000) < 10_000, `expires in an hour: ${lifetime} ms`);
    for (const expiresInSeconds of [30, 63_072_001, 1.5, '3600']) {
      expectError(await fresh.client.post(KEYS, { expiresInSeconds }), 400, 'INVALID_REQUEST');
    }
    expectError(await fresh.client.post(KEYS, { expires: 60 }), 400, 'INVALID_REQUEST');
    assert.deepEqual((await activeKeys(fresh.client)).sort(), [fresh.key.keyId, hour.key.keyId].sort());
  });

  test("another account's key id, an unknown or malformed one: 404, and nothing is revoked", async () => {
    const acct = await t.createAccount();
    const other = await t.createAccount();
    const second = await createKey(other.client);
    for (const keyId of [other.keyId, second.key.keyId, 'aaaaaaaaaaaa', 'NOT-A-KEY', 'x'.repeat(64)]) {
      expectError(await revoke(acct.client, keyId), 404, 'NOT_FOUND');
    }
    assert.deepEqual((await activeKeys(other.client)).sort(), [other.keyId, second.key.keyId].sort());
    expectOk(await other.client.tokens());
  });

  test('the last active key is refused LAST_ACTIVE_KEY; a key may revoke itself while another is active (current: true)', async () => {
    const acct = await t.createAccount();
    const last = expectError(await revoke(acct.client, acct.keyId), 409, 'LAST_ACTIVE_KEY');
    assert.deepEqual(last.details, { keyId: acct.keyId });
    expectOk(await acct.client.tokens());
    // An expired key does not count as active: the only active key is still the last.
    const expired = await issueKey(t.db, acct.id, new Date(Date.now() - 1000));
    expectError(await revoke(acct.client, acct.keyId), 409, 'LAST_ACTIVE_KEY');
    assert.equal(expectOk(await revoke(acct.client, expired.keyId)).key.active, false, 'an expired key can be revoked');
    const spare = await createKey(acct.client);
    const self = expectOk(await revoke(acct.client, acct.keyId)).key;
    assert.deepEqual([self.keyId, self.current, self.active], [acct.keyId, true, false], 'the answer says the calling key revoked itself');
    expectError(await acct.client.get(ACCOUNT), 401, 'UNAUTHORIZED');
    expectError(await revoke(spare.client, spare.key.keyId), 409, 'LAST_ACTIVE_KEY');
  });

  test('two keys revoking each other at once: one wins, the account keeps exactly one active key', async () => {
    for (let round = 0; round < 3; round++) {
      const acct = await t.createAccount();
      const b = await createKey(acct.client);
      const [ra, rb] = await Promise.all([revoke(acct.client, b.key.keyId), revoke(b.client, acct.keyId)]);
      const outcomes = [ra.status, rb.status].sort();
      assert.ok(outcomes[0] === 200 && (outcomes[1] === 401 || outcomes[1] === 409), `one revocation, the other refused: ${outcomes}`);
      const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [acct.id]);
      assert.equal(rows[0]!.n, 1, 'exactly one active key left');
    }
  });

  test('at most 10 active keys (TOO_MANY_KEYS); revoked keys beyond the 20 newest are pruned when a key is created', async () => {
    const acct = await t.createAccount();
    const made: string[] = [];
    for (let i = 0; i < 9; i++) made.push((await createKey(acct.client)).key.keyId);
    const refused = expectError(await acct.client.post(KEYS, {}), 409, 'TOO_MANY_KEYS');
    assert.deepEqual(refused.details, { maxActiveKeys: 10 });
    assert.equal((await activeKeys(acct.client)).length, 10, 'nothing was created');
    expectOk(await revoke(acct.client, made[0]!));
    await createKey(acct.client);
    // 25 old revoked keys (the operator's, say), older than the one revoked above.
    for (let i = 0; i < 25; i++) await revokeApiKey(t.db, (await issueKey(t.db, acct.id)).keyId);
    await t.db.query("UPDATE api_keys SET created_at = now() - interval '1 day' WHERE account_id = $1 AND revoked_at IS NOT NULL AND id <> $2", [acct.id, made[0]]);
    expectOk(await revoke(acct.client, made[1]!));
    await createKey(acct.client);
    const { account } = expectOk(await acct.client.get(ACCOUNT));
    const inactive = account.keys.filter((k: { active: boolean }) => !k.active).map((k: { keyId: string }) => k.keyId);
    assert.equal(inactive.length, 20, 'the 20 newest inactive keys are kept');
    assert.ok(inactive.includes(made[0]) && inactive.includes(made[1]), 'the newest revoked ones among them');
    assert.equal(account.keys.length, 30);
  });

  test('the account bucket: 1/s with a burst of 2 by default, apart from the other kinds', async () => {
    const acct = await t.createAccount({ rateLimits: null });
    // Six at once: the burst of two passes (a third if a token came back meanwhile), the rest are refused.
    const answers = await Promise.all([...Array(3).fill(null).map(() => acct.client.get(ACCOUNT)), ...Array(3).fill(null).map(() => acct.client.post(KEYS, {}))]);
    const passed = answers.filter((r) => r.status < 300);
    assert.ok(passed.length >= 2 && passed.length <= 3, `${passed.length} of 6 passed`);
    const limited = answers.filter((r) => r.status === 429);
    assert.equal(limited.length, 6 - passed.length);
    for (const r of limited) {
      expectError(r, 429, 'RATE_LIMITED');
      assert.match(r.headers.get('retry-after') ?? '', /^[1-9]$/);
    }
    for (const r of answers) assert.equal(r.headers.get('ratelimit-limit'), '2', 'a bucket of 2: 1/s, burst ×2');
    const shown = passed.find((r) => r.body.account)?.body.account;
    if (shown) assert.deepEqual(shown.rateLimits, { quote: 20, order: 5, status: 50, tokens: 50, account: 1 });
    // The other kinds have buckets of their own.
    expectOk(await acct.client.tokens());
    for (const r of passed) if (r.body.apiKey) registerSecret(secretOf(r.body.apiKey));
  });

  test('every change is logged with the account and the key that made it', async () => {
    const acct = await t.createAccount();
    const fresh = await createKey(acct.client);
    expectOk(await revoke(fresh.client, acct.keyId));
    const audit = logs.map((l) => JSON.parse(l) as { audit?: Record<string, unknown> }).flatMap((r) => (r.audit && r.audit.accountId === acct.id ? [r.audit] : []));
    assert.deepEqual(audit, [
      { action: 'key.created', accountId: acct.id, byKeyId: acct.keyId, keyId: fresh.key.keyId, expiresAt: null },
      { action: 'key.revoked', accountId: acct.id, byKeyId: fresh.key.keyId, keyId: acct.keyId, ownKey: false },
    ]);
    assert.ok(!logs.some((l) => l.includes(secretOf(fresh.apiKey))), 'no log line carries a key secret');
  });

  test('a DELETE with a body that is not JSON is 415, as documented', async () => {
    const acct = await t.createAccount();
    const other = await createKey(acct.client);
    const res = await acct.client.request('DELETE', `${KEYS}/${other.key.keyId}`, { raw: 'x', headers: { 'content-type': 'text/plain' } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assert.equal((await activeKeys(acct.client)).length, 2);
  });
});
