/** ensureDemoAccount (src/admin/demo-account.ts): the demo account a first start creates, and what a restart keeps. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ACCOUNT_ID_PATTERN, AdminService } from '../../src/admin/admin-service.ts';
import { DEMO_ACCOUNT_FILE, DEMO_FEE_RECIPIENT_FILE, ensureDemoAccount } from '../../src/admin/demo-account.ts';
import { parseApiKey } from '../../src/services/api-keys.ts';
import { getAccountByName } from '../../src/store/accounts-store.ts';
import { API_KEY_PATTERN, authCode, tempDirs } from '../support/admin-fixtures.ts';
import { forEachEngine } from '../support/databases.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const temp = tempDirs('hush-admin-');
after(temp.removeAll);

forEachEngine('ensureDemoAccount', (ctx) => {
  // The first two tests are one story on the shared store: first start, then restarts.
  const dir = temp.make();

  it('creates the demo account, key, fee recipient and 0600 files', async () => {
    const demo = await ensureDemoAccount(ctx.db, dir, systemClock, systemRandom);
    assert.match(demo.accountId, ACCOUNT_ID_PATTERN);
    assert.match(demo.apiKey, API_KEY_PATTERN);

    const file = join(dir, DEMO_ACCOUNT_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), demo);

    const keyFile = join(dir, DEMO_FEE_RECIPIENT_FILE);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const bytes = JSON.parse(readFileSync(keyFile, 'utf8')) as number[];
    assert.equal(bytes.length, 64);
    assert.equal((await createKeyPairSignerFromBytes(Uint8Array.from(bytes))).address, demo.feeRecipientAddress);

    const account = await getAccountByName(ctx.db, 'demo');
    assert.equal(account?.id, demo.accountId);
    assert.deepEqual(account?.feeRecipients, [demo.feeRecipientAddress]);
    assert.equal(await authCode(ctx.db, demo.apiKey), `ok:${demo.accountId}`);
  });

  it('is idempotent on the same store and directory, and reissues a key that stopped working', async () => {
    const t = { db: ctx.db };
    const first = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    const second = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.deepEqual(second, first);
    const svc = new AdminService(t.db, { clock: systemClock, random: systemRandom });
    assert.equal((await svc.listKeys(first.accountId)).length, 1);
    assert.deepEqual((await svc.getAccount(first.accountId)).feeRecipients, [first.feeRecipientAddress]);

    // Revoked: a new key, written back to the file.
    await svc.revokeKey(parseApiKey(first.apiKey)!.keyId);
    const third = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.equal(third.accountId, first.accountId);
    assert.equal(third.feeRecipientAddress, first.feeRecipientAddress);
    assert.notEqual(third.apiKey, first.apiKey);
    assert.equal(await authCode(t.db, third.apiKey), `ok:${first.accountId}`);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, DEMO_ACCOUNT_FILE), 'utf8')), third);
    assert.equal(statSync(join(dir, DEMO_ACCOUNT_FILE)).mode & 0o777, 0o600);

    // File lost: a new key (the secret cannot be recovered from the store).
    unlinkSync(join(dir, DEMO_ACCOUNT_FILE));
    const fourth = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.notEqual(fourth.apiKey, third.apiKey);
    assert.equal(await authCode(t.db, fourth.apiKey), `ok:${first.accountId}`);

    // A tampered secret does not authenticate: reissued too.
    writeFileSync(join(dir, DEMO_ACCOUNT_FILE), JSON.stringify({ ...fourth, apiKey: `${fourth.apiKey.slice(0, -2)}xx` }));
    const fifth = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.notEqual(fifth.apiKey, fourth.apiKey);
    assert.equal(await authCode(t.db, fifth.apiKey), `ok:${first.accountId}`);
    assert.equal(statSync(join(dir, DEMO_ACCOUNT_FILE)).mode & 0o777, 0o600);

    // An operator unregistered the fee recipient: it is registered again.
    await svc.unregisterFeeRecipient(first.accountId, first.feeRecipientAddress);
    const sixth = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.equal(sixth.apiKey, fifth.apiKey);
    assert.deepEqual((await svc.getAccount(first.accountId)).feeRecipients, [first.feeRecipientAddress]);

    // An operator suspension is not undone, and the key is kept.
    await svc.suspend(first.accountId);
    const seventh = await ensureDemoAccount(t.db, dir, systemClock, systemRandom);
    assert.equal(seventh.apiKey, fifth.apiKey);
    assert.equal((await svc.getAccount(first.accountId)).status, 'suspended');
  });

  it('a fresh store with an old directory: new account and key, same fee-recipient key pair', async () => {
    const dir = temp.make();
    const first = await ensureDemoAccount(ctx.db, dir, systemClock, systemRandom);
    const b = await ctx.fresh();
    const second = await ensureDemoAccount(b.db, dir, systemClock, systemRandom);
    assert.notEqual(second.accountId, first.accountId);
    assert.notEqual(second.apiKey, first.apiKey);
    assert.equal(second.feeRecipientAddress, first.feeRecipientAddress);
    assert.equal(await authCode(b.db, second.apiKey), `ok:${second.accountId}`);
    assert.equal(await authCode(b.db, first.apiKey), 'UNAUTHORIZED');
  });

  it('refuses to overwrite an unreadable fee-recipient key file', async () => {
    const dir = temp.make();
    const keyFile = join(dir, DEMO_FEE_RECIPIENT_FILE);
    writeFileSync(keyFile, 'not a key pair');
    await assert.rejects(ensureDemoAccount(ctx.db, dir, systemClock, systemRandom), /64-byte key pair/);
    assert.equal(readFileSync(keyFile, 'utf8'), 'not a key pair');
    assert.equal(existsSync(join(dir, DEMO_ACCOUNT_FILE)), false);
  });
});
