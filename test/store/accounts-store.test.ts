import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  addFeeRecipient,
  findApiKey,
  getAccount,
  getAccountByName,
  insertAccount,
  insertApiKey,
  listAccounts,
  listApiKeys,
  removeFeeRecipient,
  revokeApiKey,
  updateAccount,
} from '../../src/store/accounts-store.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { forEachEngine } from '../support/databases.ts';
import { base58, fakeAddress, uniqueSuffix } from '../support/store-fixtures.ts';
import { systemRandom } from '../../src/support/random.ts';

forEachEngine('accounts-store', (ctx) => {
  it('inserts and reads an account by id and by name, with defaults', async () => {
    const id = `acc_${base58(16)}`;
    const name = `alpha-${uniqueSuffix()}`;
    await insertAccount(ctx.db, { id, name, feeCapBps: 250 });
    const byId = await getAccount(ctx.db, id);
    assert.deepEqual(byId, { id, name, feeCapBps: 250, status: 'active', rateLimits: null, feeRecipients: [] });
    assert.deepEqual(await getAccountByName(ctx.db, name), byId);
    assert.equal(await getAccount(ctx.db, 'acc_missing'), null);
    assert.equal(await getAccountByName(ctx.db, 'missing'), null);
  });

  it('lists accounts in creation order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = `acc_${base58(16)}`;
      ids.push(id);
      await insertAccount(ctx.db, { id, name: `list-${i}-${uniqueSuffix()}`, feeCapBps: 100 });
      // created_at comes from now(), which is per transaction; space the inserts out a little.
      await new Promise((r) => setTimeout(r, 5));
    }
    const listed = (await listAccounts(ctx.db)).map((a) => a.id).filter((id) => ids.includes(id));
    assert.deepEqual(listed, ids);
  });

  it('updateAccount patches only the given fields and reports unknown ids', async () => {
    const id = `acc_${base58(16)}`;
    await insertAccount(ctx.db, { id, name: `upd-${uniqueSuffix()}`, feeCapBps: 100 });
    assert.equal(await updateAccount(ctx.db, id, { feeCapBps: 300 }), true);
    assert.deepEqual(await getAccount(ctx.db, id).then((a) => [a?.feeCapBps, a?.status]), [300, 'active']);
    assert.equal(await updateAccount(ctx.db, id, { status: 'suspended' }), true);
    assert.deepEqual(await getAccount(ctx.db, id).then((a) => [a?.feeCapBps, a?.status]), [300, 'suspended']);
    assert.equal(await updateAccount(ctx.db, id, { rateLimits: { quote: 3 } }), true);
    assert.deepEqual((await getAccount(ctx.db, id))?.rateLimits, { quote: 3 });
    assert.equal(await updateAccount(ctx.db, id, { feeCapBps: 0 }), true);
    const a = await getAccount(ctx.db, id);
    assert.deepEqual([a?.feeCapBps, a?.status, a?.rateLimits], [0, 'suspended', { quote: 3 }]);
    assert.equal(await updateAccount(ctx.db, id, { rateLimits: null }), true);
    assert.equal((await getAccount(ctx.db, id))?.rateLimits, null);
    assert.equal(await updateAccount(ctx.db, 'acc_missing', { status: 'active' }), false);
  });

  it('fee recipients: idempotent add, sorted list, remove reports whether it removed', async () => {
    const id = `acc_${base58(16)}`;
    await insertAccount(ctx.db, { id, name: `fr-${uniqueSuffix()}`, feeCapBps: 100 });
    const [x, y] = [fakeAddress(), fakeAddress()];
    await addFeeRecipient(ctx.db, id, x);
    await addFeeRecipient(ctx.db, id, y);
    await addFeeRecipient(ctx.db, id, x);
    assert.deepEqual((await getAccount(ctx.db, id))?.feeRecipients, [x, y].sort());
    assert.equal(await removeFeeRecipient(ctx.db, id, x), true);
    assert.equal(await removeFeeRecipient(ctx.db, id, x), false);
    assert.deepEqual((await getAccount(ctx.db, id))?.feeRecipients, [y]);
  });

  it('api keys: stores the hash, lists without it, revokes once', async () => {
    const id = `acc_${base58(16)}`;
    await insertAccount(ctx.db, { id, name: `keys-${uniqueSuffix()}`, feeCapBps: 100 });
    const k1 = generateApiKey(systemRandom);
    const k2 = generateApiKey(systemRandom);
    const expiresAt = new Date('2031-01-02T03:04:05.678Z');
    await insertApiKey(ctx.db, { keyId: k1.keyId, accountId: id, secretHash: k1.secretHash, expiresAt: null });
    await insertApiKey(ctx.db, { keyId: k2.keyId, accountId: id, secretHash: k2.secretHash, expiresAt });
    const found = await findApiKey(ctx.db, k2.keyId);
    assert.ok(found);
    assert.equal(found.accountId, id);
    assert.deepEqual([...found.secretHash], [...k2.secretHash]);
    assert.equal(found.expiresAt?.toISOString(), expiresAt.toISOString());
    assert.equal(found.revokedAt, null);
    assert.equal(await findApiKey(ctx.db, 'aaaaaaaaaaaa'), null);

    const listed = await listApiKeys(ctx.db, id);
    assert.deepEqual(listed.map((k) => k.keyId).sort(), [k1.keyId, k2.keyId].sort());
    for (const k of listed) assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'expiresAt', 'keyId', 'revokedAt']);

    assert.equal(await revokeApiKey(ctx.db, k1.keyId), true);
    assert.equal(await revokeApiKey(ctx.db, k1.keyId), false);
    assert.equal(await revokeApiKey(ctx.db, 'aaaaaaaaaaaa'), false);
    assert.ok((await findApiKey(ctx.db, k1.keyId))?.revokedAt instanceof Date);
    assert.equal((await findApiKey(ctx.db, k2.keyId))?.revokedAt, null);
  });
});
