import assert from 'node:assert/strict';
import { it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { isHushError, type HushError, type HushErrorCode } from '../../src/domain/errors.ts';
import {
  ACCOUNT_ID_PATTERN,
  AdminService,
  accountListView,
  accountView,
  createdAccountView,
  createdKeyView,
  generateAccountId,
  okView,
  parseExpiresAt,
} from '../../src/admin/admin-service.ts';
import { apiKeyIsValid } from '../../src/admin/demo-account.ts';
import { generateApiKey, parseApiKey } from '../../src/services/api-keys.ts';
import { Authenticator } from '../../src/services/authenticator.ts';
import { API_KEY_PATTERN, authCode } from '../support/admin-fixtures.ts';
import { forEachEngine } from '../support/databases.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { uniqueSuffix } from '../support/store-fixtures.ts';
import { systemRandom } from '../../src/support/random.ts';
import { systemClock } from '../../src/support/clock.ts';

const keyIdOf = (apiKey: string): string => parseApiKey(apiKey)!.keyId;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** Any ordinary wallet, written out: a fee recipient the address rules allow. */
const OTHER_WALLET = 'EEGtKbtYswg8EPmkYN4fLr3GF9mT62nEUe9BFGrjbyvS';

function rejectsCode(code: HushErrorCode, field?: string) {
  return (e: unknown) => {
    assert.ok(isHushError(e), `expected a HushError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (field !== undefined) assert.equal((e.details as { field?: string } | undefined)?.field, field);
    return true;
  };
}


it('account ids are acc_ + 16 base58 characters, and random', () => {
  const ids = new Set(Array.from({ length: 200 }, () => generateAccountId(systemRandom)));
  assert.equal(ids.size, 200);
  for (const id of ids) assert.match(id, /^acc_[1-9A-HJ-NP-Za-km-z]{16}$/);
});

it('parseExpiresAt accepts future ISO timestamps only', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  assert.equal(parseExpiresAt(undefined, now), null);
  assert.equal(parseExpiresAt(null, now), null);
  assert.equal(parseExpiresAt('2030-01-02T00:00:00Z', now)?.toISOString(), '2030-01-02T00:00:00.000Z');
  assert.equal(parseExpiresAt('2030-01-02T01:00:00+01:00', now)?.toISOString(), '2030-01-02T00:00:00.000Z');
  for (const bad of ['2029-12-31T23:59:59Z', '2030-01-01T00:00:00.000Z', 'tomorrow', '2030-01-02', '2030-13-45T00:00:00Z', 12345, {}]) {
    assert.throws(() => parseExpiresAt(bad, now), rejectsCode('INVALID_REQUEST', 'expiresAt'), String(bad));
  }
});

forEachEngine('admin-service', (ctx) => {
  const changed: string[] = [];
  const admin = () => new AdminService(ctx.db, { clock: systemClock, random: systemRandom, onAccountChanged: (id) => changed.push(id) });

  it('createAccount: new active account with default fee cap and a working first key', async () => {
    const name = `acme-${uniqueSuffix()}`;
    const created = await admin().createAccount(name);
    assert.match(created.accountId, ACCOUNT_ID_PATTERN);
    assert.match(created.apiKey, API_KEY_PATTERN);
    assert.deepEqual(Object.keys(created).sort(), ['accountId', 'apiKey'], 'exactly the contract fields, safe to spread');
    const detail = await admin().getAccount(created.accountId);
    assert.deepEqual({ ...detail, keys: detail.keys.map((k) => k.keyId) }, {
      accountId: created.accountId,
      name,
      feeCapBps: 100,
      status: 'active',
      feeRecipients: [],
      keys: [keyIdOf(created.apiKey)],
    });
    assert.equal(await authCode(ctx.db, created.apiKey), `ok:${created.accountId}`);
  });

  it('createAccount: fee cap bounds 0..1000 and name rules', async () => {
    const svc = admin();
    assert.equal((await svc.getAccount((await svc.createAccount(`zero-${uniqueSuffix()}`, 0)).accountId)).feeCapBps, 0);
    assert.equal((await svc.getAccount((await svc.createAccount(`max-${uniqueSuffix()}`, 1000)).accountId)).feeCapBps, 1000);
    for (const bad of [1001, -1, 1.5, Number.NaN, '100' as unknown as number, null as unknown as number]) {
      await assert.rejects(svc.createAccount(`bad-${uniqueSuffix()}`, bad), rejectsCode('INVALID_REQUEST', 'feeCapBps'), String(bad));
    }
    for (const bad of ['', ' padded', 'padded ', 'line\nbreak', 'x'.repeat(101), 42 as unknown as string]) {
      await assert.rejects(svc.createAccount(bad), rejectsCode('INVALID_REQUEST', 'name'), JSON.stringify(bad));
    }
    assert.equal((await svc.listAccounts()).filter((a) => a.name.startsWith('bad-')).length, 0, 'nothing created on bad input');
  });

  it('createAccount: a duplicate name is INVALID_REQUEST and creates nothing', async () => {
    const name = `dup-${uniqueSuffix()}`;
    const svc = admin();
    await svc.createAccount(name);
    const before = (await svc.listAccounts()).length;
    await assert.rejects(svc.createAccount(name, 200), (e: unknown) => {
      assert.ok(isHushError(e, 'INVALID_REQUEST'));
      assert.match(e.message, /already exists/);
      assert.match(e.message, new RegExp(name));
      return true;
    });
    assert.equal((await svc.listAccounts()).length, before);
    // The failed attempt's key was rolled back with its account.
    const { rows } = await ctx.db.query<{ n: string | number }>('SELECT count(*) AS n FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.name = $1', [name]);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('createKey: several active keys, optional expiry, unknown account is NOT_FOUND', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`rot-${uniqueSuffix()}`);
    changed.length = 0;
    const expiresAt = new Date(Date.now() + 86_400_000);
    const k2 = await svc.createKey(acc.accountId, expiresAt);
    assert.match(k2.apiKey, API_KEY_PATTERN);
    assert.equal(parseApiKey(k2.apiKey)?.keyId, k2.keyId);
    assert.notEqual(k2.keyId, keyIdOf(acc.apiKey));
    assert.deepEqual(changed, [acc.accountId]);
    const k3 = await svc.createKey(acc.accountId, expiresAt.toISOString());
    assert.equal(await authCode(ctx.db, acc.apiKey), `ok:${acc.accountId}`);
    assert.equal(await authCode(ctx.db, k2.apiKey), `ok:${acc.accountId}`);
    assert.equal(await authCode(ctx.db, k3.apiKey), `ok:${acc.accountId}`);
    const keys = await svc.listKeys(acc.accountId);
    assert.deepEqual(keys.map((k) => k.keyId).sort(), [keyIdOf(acc.apiKey), k2.keyId, k3.keyId].sort());
    assert.equal(keys.find((k) => k.keyId === k2.keyId)?.expiresAt?.toISOString(), expiresAt.toISOString());
    assert.equal(keys.find((k) => k.keyId === keyIdOf(acc.apiKey))?.expiresAt, null);

    await assert.rejects(svc.createKey('acc_1111111111111111'), rejectsCode('NOT_FOUND'));
    await assert.rejects(svc.listKeys('acc_1111111111111111'), rejectsCode('NOT_FOUND'));
    await assert.rejects(svc.createKey(acc.accountId, new Date(Date.now() - 1000)), rejectsCode('INVALID_REQUEST', 'expiresAt'));
    await assert.rejects(svc.createKey(acc.accountId, 'next week'), rejectsCode('INVALID_REQUEST', 'expiresAt'));
    assert.equal((await svc.listKeys(acc.accountId)).length, 3);

    // Once its expiry passes, a key stops authenticating.
    await ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [k2.keyId]);
    assert.equal(await authCode(ctx.db, k2.apiKey), 'UNAUTHORIZED');
    assert.equal(await apiKeyIsValid(ctx.db, k2.apiKey, acc.accountId, new Date()), false);
  });

  it('revokeKey: the revoked key stops authenticating, the others keep working', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`rev-${uniqueSuffix()}`);
    const k2 = await svc.createKey(acc.accountId);
    changed.length = 0;
    assert.equal(await svc.revokeKey(keyIdOf(acc.apiKey)), true);
    assert.deepEqual(changed, [acc.accountId]);
    assert.equal(await svc.revokeKey(keyIdOf(acc.apiKey)), false, 'already revoked');
    assert.equal(await authCode(ctx.db, acc.apiKey), 'UNAUTHORIZED');
    assert.equal(await authCode(ctx.db, k2.apiKey), `ok:${acc.accountId}`);
    const keys = await svc.listKeys(acc.accountId);
    assert.ok(keys.find((k) => k.keyId === keyIdOf(acc.apiKey))?.revokedAt instanceof Date);
    assert.equal(keys.find((k) => k.keyId === k2.keyId)?.revokedAt, null);
    await assert.rejects(svc.revokeKey('aaaaaaaaaaaa'), rejectsCode('NOT_FOUND'));
    await assert.rejects(svc.revokeKey('Not A Key Id'), rejectsCode('NOT_FOUND'));
  });

  it('a cached key still refuses any other secret under its key id, before and after the right one', async () => {
    const acc = await admin().createAccount(`cache-${uniqueSuffix()}`);
    const auth = new Authenticator(ctx.db, 60_000, systemClock);
    const { keyId, secret } = parseApiKey(acc.apiKey)!;
    // Same key id, same length, one character changed: only the stored hash can tell them apart.
    const forged = `hush_${keyId}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const code = async (apiKey: string) => auth.authenticate(`Bearer ${apiKey}`).then((c) => `ok:${c.account.id}`, (e: HushError) => e.code);
    assert.equal(await code(forged), 'UNAUTHORIZED', 'before the right secret was ever seen');
    assert.equal(await code(acc.apiKey), `ok:${acc.accountId}`);
    assert.equal(await code(forged), 'UNAUTHORIZED', 'after the right secret was remembered');
    assert.equal(auth.authenticateCached(`Bearer ${acc.apiKey}`)?.account.id, acc.accountId);
    assert.throws(() => auth.authenticateCached(`Bearer ${forged}`), rejectsCode('UNAUTHORIZED'));
  });

  it('made-up keys do not push a real key out of the cache (a flood of them cost its store reads again)', async () => {
    const acc = await admin().createAccount(`flood-${uniqueSuffix()}`);
    const { keyId } = parseApiKey(acc.apiKey)!;
    let reads = 0;
    // The real store, with its reads of this key counted.
    const counting = {
      query: (sql: string, params?: unknown[]) => {
        if (params?.[0] === keyId) reads++;
        return ctx.db.query(sql, params);
      },
    } as typeof ctx.db;
    // Time stands still: the cache's life is not what is tested (10,050 guesses outlived a 60 s life under load).
    const auth = new Authenticator(counting, 60_000, new ManualClock());
    const ok = async (apiKey: string) => auth.authenticate(`Bearer ${apiKey}`).then((c) => c.account.id, (e: HushError) => e.code);
    assert.equal(await ok(acc.apiKey), acc.accountId);
    assert.equal(reads, 1);
    for (let i = 0; i < 10_050; i += 50) {
      const guesses = Array.from({ length: 50 }, () => generateApiKey(systemRandom).apiKey);
      for (const code of await Promise.all(guesses.map(ok))) assert.equal(code, 'UNAUTHORIZED');
    }
    assert.equal(await ok(acc.apiKey), acc.accountId);
    assert.equal(reads, 1, 'the real key is still cached');
  });

  it('fee recipients: valid Solana addresses only, idempotent register, unregister', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`fee-${uniqueSuffix()}`);
    const addr = (await generateKeyPairSigner()).address;
    changed.length = 0;
    await svc.registerFeeRecipient(acc.accountId, addr);
    await svc.registerFeeRecipient(acc.accountId, addr);
    await svc.registerFeeRecipient(acc.accountId, OTHER_WALLET);
    assert.deepEqual((await svc.getAccount(acc.accountId)).feeRecipients, [addr, OTHER_WALLET].sort());
    assert.deepEqual(changed, [acc.accountId, acc.accountId, acc.accountId]);
    // docs/spec.md §4: programs, sysvars and the native mint are refused too.
    for (const bad of ['not-an-address', 'z'.repeat(45), '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', '', 'abc', SYSTEM_PROGRAM, 'SysvarC1ock11111111111111111111111111111111', 'So11111111111111111111111111111111111111112']) {
      await assert.rejects(svc.registerFeeRecipient(acc.accountId, bad), rejectsCode('INVALID_ADDRESS', 'address'), bad);
    }
    await assert.rejects(svc.registerFeeRecipient('acc_1111111111111111', addr), rejectsCode('NOT_FOUND'));

    await svc.unregisterFeeRecipient(acc.accountId, addr);
    assert.deepEqual((await svc.getAccount(acc.accountId)).feeRecipients, [OTHER_WALLET]);
    await assert.rejects(svc.unregisterFeeRecipient(acc.accountId, addr), rejectsCode('NOT_FOUND'));
    await assert.rejects(svc.unregisterFeeRecipient('acc_1111111111111111', OTHER_WALLET), rejectsCode('NOT_FOUND'));
  });

  it('setFeeCap validates and persists', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`cap-${uniqueSuffix()}`);
    assert.equal((await svc.setFeeCap(acc.accountId, 750)).feeCapBps, 750);
    assert.equal((await svc.getAccount(acc.accountId)).feeCapBps, 750);
    for (const bad of [1001, -5, 2.5]) await assert.rejects(svc.setFeeCap(acc.accountId, bad), rejectsCode('INVALID_REQUEST', 'feeCapBps'));
    assert.equal((await svc.getAccount(acc.accountId)).feeCapBps, 750);
    assert.equal((await svc.setFeeCap(acc.accountId, 0)).feeCapBps, 0);
    await assert.rejects(svc.setFeeCap('acc_1111111111111111', 10), rejectsCode('NOT_FOUND'));
  });

  it('suspend → ACCOUNT_SUSPENDED for every key; reactivate restores access', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`sus-${uniqueSuffix()}`);
    const k2 = await svc.createKey(acc.accountId);
    changed.length = 0;
    assert.equal((await svc.suspend(acc.accountId)).status, 'suspended');
    assert.equal((await svc.suspend(acc.accountId)).status, 'suspended', 'idempotent');
    assert.equal(await authCode(ctx.db, acc.apiKey), 'ACCOUNT_SUSPENDED');
    assert.equal(await authCode(ctx.db, k2.apiKey), 'ACCOUNT_SUSPENDED');
    assert.equal(await authCode(ctx.db, `${acc.apiKey.slice(0, -1)}${acc.apiKey.endsWith('A') ? 'B' : 'A'}`), 'UNAUTHORIZED', 'a wrong secret is still 401');
    assert.equal((await svc.reactivate(acc.accountId)).status, 'active');
    assert.equal(await authCode(ctx.db, acc.apiKey), `ok:${acc.accountId}`);
    assert.deepEqual(changed, [acc.accountId, acc.accountId, acc.accountId]);
    await assert.rejects(svc.suspend('acc_1111111111111111'), rejectsCode('NOT_FOUND'));
    await assert.rejects(svc.updateAccount(acc.accountId, {}), rejectsCode('INVALID_REQUEST'));
    await assert.rejects(svc.updateAccount(acc.accountId, { status: 'deleted' as 'active' }), rejectsCode('INVALID_REQUEST', 'status'));
    const both = await svc.updateAccount(acc.accountId, { feeCapBps: 42, status: 'suspended' });
    assert.deepEqual([both.feeCapBps, both.status], [42, 'suspended']);
    // An invalid half of a patch changes nothing.
    await assert.rejects(svc.updateAccount(acc.accountId, { feeCapBps: 5, status: 'gone' as 'active' }), rejectsCode('INVALID_REQUEST'));
    const now = await svc.getAccount(acc.accountId);
    assert.deepEqual([now.feeCapBps, now.status], [42, 'suspended']);
  });

  it('getAccount of an unknown id is NOT_FOUND', async () => {
    await assert.rejects(admin().getAccount('acc_1111111111111111'), rejectsCode('NOT_FOUND'));
    await assert.rejects(admin().getAccount('anything at all'), rejectsCode('NOT_FOUND'));
  });

  it('listings and views never contain a secret or a hash', async () => {
    const svc = admin();
    const acc = await svc.createAccount(`sec-${uniqueSuffix()}`);
    const k2 = await svc.createKey(acc.accountId, new Date(Date.now() + 3_600_000));
    await svc.revokeKey(k2.keyId);
    await svc.registerFeeRecipient(acc.accountId, OTHER_WALLET);
    const { rows } = await ctx.db.query<{ h: string }>(`SELECT encode(secret_hash, 'hex') AS h FROM api_keys WHERE account_id = $1`, [acc.accountId]);
    const forbidden = [parseApiKey(acc.apiKey)!.secret, parseApiKey(k2.apiKey)!.secret, ...rows.map((r) => r.h)];
    for (const h of rows) forbidden.push(Buffer.from(h.h, 'hex').toString('base64'), Buffer.from(h.h, 'hex').toString('base64url'));
    const detail = await svc.getAccount(acc.accountId);
    const outputs = [await svc.listAccounts(), detail, await svc.listKeys(acc.accountId), accountListView(await svc.listAccounts()), accountView(detail)];
    const text = JSON.stringify(outputs);
    for (const f of forbidden) assert.ok(!text.includes(f), 'a secret or hash leaked into a listing');
    assert.ok(!/secret|hash/i.test(text), 'no secret/hash fields at all');

    // Exact JSON shapes of the admin HTTP contract.
    const view = accountView(detail);
    assert.deepEqual(Object.keys(view).sort(), ['account', 'success']);
    assert.deepEqual(Object.keys(view.account).sort(), ['accountId', 'feeCapBps', 'feeRecipients', 'keys', 'name', 'status']);
    const revoked = view.account.keys.find((k) => k.keyId === k2.keyId)!;
    assert.deepEqual(Object.keys(revoked).sort(), ['createdAt', 'expiresAt', 'keyId', 'revokedAt']);
    for (const t of [revoked.createdAt, revoked.expiresAt, revoked.revokedAt]) assert.match(String(t), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(view.account.keys.find((k) => k.keyId === keyIdOf(acc.apiKey))!.revokedAt, null);
    const list = accountListView(await svc.listAccounts());
    const entry = list.accounts.find((a) => a.accountId === acc.accountId);
    assert.deepEqual(entry, { accountId: acc.accountId, name: detail.name, feeCapBps: 100, status: 'active', feeRecipients: [OTHER_WALLET] });
    assert.deepEqual(createdAccountView(acc), { success: true, accountId: acc.accountId, apiKey: acc.apiKey });
    assert.deepEqual(createdKeyView(k2), { success: true, keyId: k2.keyId, apiKey: k2.apiKey });
    assert.deepEqual(okView(), { success: true });
  });
});
