/**
 * Issue 50, finding 5: a key thief left an account with no key. Created K2 with `expiresInSeconds: 60`, revoked the
 * account's last non-expiring key with K2 (200), waited: no usable key. LAST_ACTIVE_KEY counted the keys active at
 * that instant. Now (docs/spec.md §3) a revocation must leave another key active for at least 24 h, and a key that
 * expires cannot revoke the account's last key that never does. Real Hush, real keys over the partner API.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectError, expectOk, registerSecret, secretOf, startTestHush, type HushClient, type TestHush } from '../support/hush-server.ts';

const KEYS = '/transfer/v1/account/keys';
let t: TestHush;

before(async () => {
  t = await startTestHush({ chain: false });
});
after(() => t?.close());

async function createKey(client: HushClient, body: unknown = {}) {
  const created = expectOk(await client.post(KEYS, body), 201);
  registerSecret(secretOf(created.apiKey));
  return { keyId: created.key.keyId as string, client: client.withKey(created.apiKey) as HushClient };
}
const revoke = (client: HushClient, keyId: string) => client.request('DELETE', `${KEYS}/${keyId}`);

test('a key expiring within 24 h cannot revoke the only lasting key: LAST_ACTIVE_KEY, and the account keeps it', async () => {
  const acct = await t.createAccount();
  const short = await createKey(acct.client, { expiresInSeconds: 60 });
  const refused = expectError(await revoke(short.client, acct.keyId), 409, 'LAST_ACTIVE_KEY');
  assert.deepEqual(refused.details, { keyId: acct.keyId });
  assert.match(refused.message, /24 hours/);
  expectOk(await acct.client.tokens());
  // Nor may the lasting key revoke itself while only the short one would be left.
  expectError(await revoke(acct.client, acct.keyId), 409, 'LAST_ACTIVE_KEY');
  // The short key itself goes freely: the lasting one stays.
  assert.equal(expectOk(await revoke(acct.client, short.keyId)).key.active, false);
});

test('a key that expires (even in days) cannot revoke the last key that never expires; with another such key it can', async () => {
  const acct = await t.createAccount();
  const days = await createKey(acct.client, { expiresInSeconds: 3 * 86_400 });
  const refused = expectError(await revoke(days.client, acct.keyId), 409, 'LAST_ACTIVE_KEY');
  assert.match(refused.message, /never expires/);
  expectOk(await acct.client.tokens());
  // The lasting key may retire itself in favour of a key that lasts days (its owner's choice).
  const spare = await createKey(acct.client);
  assert.equal(expectOk(await revoke(days.client, acct.keyId)).key.active, false, 'another key that never expires stays');
  expectError(await revoke(days.client, spare.keyId), 409, 'LAST_ACTIVE_KEY');
  assert.equal(expectOk(await revoke(spare.client, spare.keyId)).key.current, true, 'a lasting key may revoke itself while a key lasts 24 h more');
  expectOk(await days.client.tokens());
});
