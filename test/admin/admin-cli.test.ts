import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { serverUrl } from '../../src/cli/admin-cli.ts';
import { parseApiKey } from '../../src/services/api-keys.ts';
import { Authenticator } from '../../src/services/authenticator.ts';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock } from '../../src/support/clock.ts';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.ts';
import { startTestHush, type TestHush } from '../support/hush-server.ts';
import { POSTGRES_URL, dropSchema, newSchemaName, postgresSkipReason } from '../support/databases.ts';
import { API_KEY_PATTERN, authCode } from '../support/admin-fixtures.ts';
import { type CliResult, cliEnv, closedPortUrl, json, runChild, runInProcess, tempDir } from './admin-cli-harness.ts';

async function authenticates(dbOpts: Omit<Parameters<typeof openDb>[0], 'clock'>, apiKey: string): Promise<string> {
  const db = await openDb({ ...dbOpts, clock: systemClock });
  try {
    return await authCode(db, apiKey);
  } finally {
    await db.close();
  }
}

/**
 * Every command once, through `run`; asserts on the JSON each prints. The same tour runs in every
 * mode, which is what makes the modes interchangeable for an operator.
 */
async function tour(run: (args: string[]) => Promise<CliResult>, label: string): Promise<{ accountId: string; apiKey: string; apiKey2: string }> {
  const name = `Tour ${label} ${Date.now()}`;
  const created = await run(['create-account', name, '--fee-cap-bps', '250']);
  const c = json(created);
  assert.deepEqual(Object.keys(c).sort(), ['accountId', 'apiKey', 'success']);
  assert.equal(c.success, true);
  assert.match(c.apiKey, API_KEY_PATTERN);
  assert.match(created.stderr, /cannot be shown again/);

  const dup = await run(['create-account', name]);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /INVALID_REQUEST.*already exists/);
  assert.equal(dup.stdout, '');

  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const k = await run(['create-key', c.accountId, '--expires-at', expiresAt]);
  const key2 = json(k);
  assert.deepEqual(Object.keys(key2).sort(), ['apiKey', 'keyId', 'success']);
  assert.match(k.stderr, /cannot be shown again/);

  const addr = (await generateKeyPairSigner()).address;
  assert.deepEqual(json(await run(['register-fee-recipient', c.accountId, addr])), { success: true });
  const badAddr = await run(['register-fee-recipient', c.accountId, 'not-an-address']);
  assert.equal(badAddr.code, 1);
  assert.match(badAddr.stderr, /INVALID_ADDRESS/);

  const capped = json(await run(['set-fee-cap', c.accountId, '500']));
  assert.equal(capped.account.feeCapBps, 500);
  const tooHigh = await run(['set-fee-cap', c.accountId, '1001']);
  assert.equal(tooHigh.code, 1);
  assert.match(tooHigh.stderr, /INVALID_REQUEST/);

  assert.equal(json(await run(['suspend', c.accountId])).account.status, 'suspended');
  assert.equal(json(await run(['reactivate', c.accountId])).account.status, 'active');

  const shown = json(await run(['show-account', c.accountId]));
  assert.equal(shown.success, true);
  assert.deepEqual(
    { ...shown.account, keys: undefined },
    { accountId: c.accountId, name, feeCapBps: 500, status: 'active', feeRecipients: [addr], keys: undefined },
  );
  const keyIds = shown.account.keys.map((x: { keyId: string }) => x.keyId).sort();
  assert.deepEqual(keyIds, [parseApiKey(c.apiKey)!.keyId, key2.keyId].sort());
  assert.equal(shown.account.keys.find((x: { keyId: string }) => x.keyId === key2.keyId).expiresAt, expiresAt);

  const hook = await run(['set-webhook', c.accountId, 'https://partner.example/hooks/hush']);
  const h = json(hook);
  assert.deepEqual(Object.keys(h).sort(), ['secret', 'success', 'url']);
  assert.equal(h.url, 'https://partner.example/hooks/hush');
  assert.match(h.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.match(hook.stderr, /signing secret/);
  assert.doesNotMatch(hook.stderr, /API key|hash/, 'a webhook secret is no API key, and it is not kept as a hash');
  const badHook = await run(['set-webhook', c.accountId, 'not a url']);
  assert.equal(badHook.code, 1);
  assert.match(badHook.stderr, /INVALID_REQUEST/);
  assert.deepEqual(json(await run(['clear-webhook', c.accountId])), { success: true });
  const noAccount = await run(['clear-webhook', 'acc_1111111111111111']);
  assert.equal(noAccount.code, 1);
  assert.match(noAccount.stderr, /NOT_FOUND/);

  assert.deepEqual(json(await run(['unregister-fee-recipient', c.accountId, addr])), { success: true });
  const notRegistered = await run(['unregister-fee-recipient', c.accountId, addr]);
  assert.equal(notRegistered.code, 1);
  assert.match(notRegistered.stderr, /NOT_FOUND/);

  assert.deepEqual(json(await run(['revoke-key', key2.keyId])), { success: true });
  const afterRevoke = json(await run(['show-account', c.accountId]));
  assert.match(afterRevoke.account.keys.find((x: { keyId: string }) => x.keyId === key2.keyId).revokedAt, /^\d{4}-.*Z$/);

  const list = await run(['list-accounts']);
  const listed = json(list);
  assert.deepEqual(listed.accounts.find((a: { accountId: string }) => a.accountId === c.accountId), {
    accountId: c.accountId,
    name,
    feeCapBps: 500,
    status: 'active',
    feeRecipients: [],
  });
  assert.ok(!list.stdout.includes(parseApiKey(c.apiKey)!.secret), 'list-accounts prints no secret');
  assert.ok(!list.stdout.includes(parseApiKey(key2.apiKey)!.secret));

  const missing = await run(['show-account', 'acc_1111111111111111']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /NOT_FOUND/);
  assert.equal(missing.stdout, '');
  return { accountId: c.accountId, apiKey: c.apiKey, apiKey2: key2.apiKey };
}

describe('admin CLI: usage', () => {
  it('bad usage exits 2 with the usage text on stderr (child process)', async () => {
    const env = cliEnv({ DATA_DIR: tempDir(), HUSH_OPS_URL: await closedPortUrl() });
    const [none, unknown] = await Promise.all([runChild([], env), runChild(['frobnicate'], env)]);
    for (const r of [none, unknown]) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Usage: npm run admin/);
      assert.equal(r.stdout, '');
    }
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  it('rejects wrong arguments and options without touching the store', async () => {
    const dataDir = tempDir();
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    for (const args of [
      ['create-account'],
      ['create-account', 'a', 'b'],
      ['create-account', 'x', '--fee-cap-bps', 'ten'],
      ['create-account', 'x', '--fee-cap-bps', '-5'],
      ['revoke-key', 'abcdefghijkl', '--fee-cap-bps', '5'],
      ['list-accounts', '--bogus'],
      ['show-account'],
      ['set-fee-cap', 'acc_x', '1.5'],
      ['create-key', 'acc_x', '--expires-at', 'whenever'],
      ['suspend', ''],
    ]) {
      const r = await runInProcess(args, env);
      assert.equal(r.code, 2, `${args.join(' ')} → ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, /Usage:/);
    }
    assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'no store was opened');
    const help = await runInProcess(['help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /create-account <name> \[--fee-cap-bps N\]/);
    for (const cmd of ['create-key', 'revoke-key', 'register-fee-recipient', 'unregister-fee-recipient', 'set-fee-cap', 'suspend', 'reactivate', 'list-accounts', 'show-account']) {
      assert.match(help.stdout, new RegExp(`\\b${cmd}\\b`));
    }
  });

  it('a past --expires-at is an error (exit 1) before any store is opened', async () => {
    const dataDir = tempDir();
    const r = await runInProcess(['create-key', 'acc_x', '--expires-at', '2001-01-01T00:00:00Z'], cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /INVALID_REQUEST.*future/);
    assert.equal(existsSync(join(dataDir, 'pgdata')), false);
  });

  it('serverUrl: the ops listener, as the server finds it (HUSH_OPS_HOST, HUSH_OPS_PORT, else PORT + 1); HUSH_OPS_URL wins; wildcard hosts mean loopback', () => {
    assert.equal(serverUrl({ HUSH_OPS_URL: 'http://h:1/' }), 'http://h:1');
    assert.equal(serverUrl({}), 'http://127.0.0.1:8788');
    assert.equal(serverUrl({ PORT: '9000' }), 'http://127.0.0.1:9001');
    assert.equal(serverUrl({ HOST: '10.0.0.1', PORT: '9000' }), 'http://127.0.0.1:9001', 'the partner HOST is not the ops host');
    assert.equal(serverUrl({ HUSH_OPS_HOST: '0.0.0.0', HUSH_OPS_PORT: '9100', PORT: '9000' }), 'http://127.0.0.1:9100');
    assert.equal(serverUrl({ HUSH_OPS_HOST: '::' }), 'http://[::1]:8788');
    assert.equal(serverUrl({ HUSH_OPS_HOST: 'localhost', HUSH_OPS_PORT: '1' }), 'http://localhost:1');
  });
});

describe('admin CLI: direct store, child process', () => {
  it('create-account prints a key that authenticates; list-accounts shows no secret', async () => {
    const dataDir = tempDir();
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    const created = await runChild(['create-account', 'Child Co', '--fee-cap-bps', '300'], env);
    const c = json(created);
    assert.match(c.apiKey, API_KEY_PATTERN);
    assert.match(created.stderr, /cannot be shown again/);

    const list = await runChild(['list-accounts'], env);
    const listed = json(list);
    assert.deepEqual(listed, { success: true, accounts: [{ accountId: c.accountId, name: 'Child Co', feeCapBps: 300, status: 'active', feeRecipients: [] }] });
    assert.ok(!list.stdout.includes(parseApiKey(c.apiKey)!.secret));
    assert.doesNotMatch(list.stderr, /cannot be shown again/);

    // Both children have exited; the store they wrote is readable here and the key works.
    assert.equal(await authenticates({ dataDir }, c.apiKey), `ok:${c.accountId}`);
    assert.equal(await authenticates({ dataDir }, `${c.apiKey.slice(0, -1)}${c.apiKey.endsWith('x') ? 'y' : 'x'}`), 'UNAUTHORIZED');
  });
});

describe('admin CLI: a PGlite store held by another process', () => {
  it('refuses (exit 1) even when no server answers (a worker, a server on another port); works once released', async () => {
    const dataDir = tempDir();
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    const held = await openDb({ dataDir, clock: systemClock }); // this test process holds it, as a running Hush would
    try {
      const r = await runChild(['create-account', 'Sneaky Co'], env);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /in use by process \d+/);
      assert.equal(r.stdout, '');
      const { rows } = await held.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
      assert.equal(rows[0]!.n, 0, 'nothing was written behind the holder\'s back');
    } finally {
      await held.close();
    }
    assert.match(json(await runChild(['create-account', 'Patient Co'], env)).apiKey, API_KEY_PATTERN);
  });
});

describe('admin CLI: direct store, every command', () => {
  it('PGlite under DATA_DIR', async () => {
    const dataDir = tempDir();
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    const t = await tour((args) => runInProcess(args, env), 'pglite');
    assert.ok(existsSync(join(dataDir, 'pgdata')));
    assert.equal(await authenticates({ dataDir }, t.apiKey), `ok:${t.accountId}`);
    assert.equal(await authenticates({ dataDir }, t.apiKey2), 'UNAUTHORIZED', 'revoked by the tour');

    // The holds queue read from the store has the admin API's shape: fund holds and counts beside the held orders.
    assert.deepEqual(json(await runInProcess(['holds'], env)), { success: true, holds: [], fundHolds: [], counts: { holds: 0, fundHolds: 0 }, next: { holds: null, fundHolds: null } });

    // An admin token without a reachable server falls back to the same store.
    const r = await runInProcess(['list-accounts'], { ...env, HUSH_ADMIN_TOKEN: 'tok' });
    assert.deepEqual(json(r).accounts.map((a: { accountId: string }) => a.accountId), [t.accountId]);

    // reconcile needs the chain too; with the embedded chain stopped the message says so (not "store").
    const port = new URL(await closedPortUrl()).port;
    const noChain = await runInProcess(['reconcile'], { ...env, LOCALNET_PORT: port });
    assert.equal(noChain.code, 1);
    assert.match(noChain.stderr, /chain: no Solana RPC answers at http:\/\/127\.0\.0\.1:\d+ .*npm run localnet/);
    assert.doesNotMatch(noChain.stderr, /store:/);
  });

  it('PostgreSQL via DATABASE_URL', { skip: postgresSkipReason ?? false }, async () => {
    const schema = newSchemaName();
    const setup = await openDb({ databaseUrl: POSTGRES_URL, dataDir: null, schema, clock: systemClock });
    await setup.close();
    try {
      const url = new URL(POSTGRES_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const dataDir = tempDir();
      // No HUSH_ADMIN_TOKEN and Postgres: no server probe is needed at all.
      const env = cliEnv({ DATABASE_URL: url.toString(), DATA_DIR: dataDir });
      const t = await tour((args) => runInProcess(args, env), 'postgres');
      assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'PGlite was not used');
      assert.equal(await authenticates({ databaseUrl: POSTGRES_URL, dataDir: null, schema }, t.apiKey), `ok:${t.accountId}`);
    } finally {
      await dropSchema(schema);
    }
  });

  it('PostgreSQL with DATABASE_SCHEMA, as the server reads it', { skip: postgresSkipReason ?? false }, async () => {
    const schema = newSchemaName();
    try {
      const env = cliEnv({ DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema, DATA_DIR: tempDir() });
      const created = json(await runInProcess(['create-account', 'Schema Co'], env));
      assert.equal(await authenticates({ databaseUrl: POSTGRES_URL, dataDir: null, schema }, created.apiKey), `ok:${created.accountId}`);
    } finally {
      await dropSchema(schema);
    }
  });

});

describe('admin CLI: with a running server', () => {
  // A real Hush with its admin API, behind a proxy that records what the CLI sent.
  let server: TestHush;
  let stub: RecordingProxy;
  let TOKEN: string;
  before(async () => {
    server = await startTestHush({ admin: true });
    TOKEN = server.adminToken!;
    // The admin API is on the ops listener (docs/spec.md §4).
    stub = await startRecordingProxy(server.opsUrl);
  });
  after(async () => {
    await stub?.close();
    await server?.close();
  });

  it('PGlite store, server up, no admin token: refuses and leaves the store alone', async () => {
    const dataDir = tempDir();
    const r = await runInProcess(['list-accounts'], cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: stub.url }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /HUSH_ADMIN_TOKEN/);
    assert.match(r.stderr, /PGlite/);
    assert.equal(r.stdout, '');
    assert.equal(existsSync(join(dataDir, 'pgdata')), false);
  });

  it('with HUSH_ADMIN_TOKEN every command goes through /admin/v1', async () => {
    const dataDir = tempDir();
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: stub.url, HUSH_ADMIN_TOKEN: TOKEN });
    stub.requests.length = 0;
    const t = await tour((args) => runInProcess(args, env), 'http');
    assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'the local store was never opened');
    // The server's store holds the account, and the key works there.
    const caller = await new Authenticator(server.db, 0, systemClock).authenticate(`Bearer ${t.apiKey}`);
    assert.equal(caller.account.id, t.accountId);

    assert.ok(stub.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
    const seen = stub.requests.map((r) => `${r.method} ${r.path.replace(t.accountId, ':acc').replace(/\/keys\/[a-z2-7]{12}$/, '/keys/:key').replace(/fee-recipients\/\w+$/, 'fee-recipients/:addr')}`);
    for (const want of [
      'POST /admin/v1/accounts',
      'POST /admin/v1/accounts/:acc/keys',
      'POST /admin/v1/accounts/:acc/fee-recipients',
      'PATCH /admin/v1/accounts/:acc',
      'GET /admin/v1/accounts/:acc',
      'DELETE /admin/v1/accounts/:acc/fee-recipients/:addr',
      'PUT /admin/v1/accounts/:acc/webhook',
      'DELETE /admin/v1/accounts/:acc/webhook',
      'DELETE /admin/v1/keys/:key',
      'GET /admin/v1/accounts',
    ]) {
      assert.ok(seen.includes(want), `expected ${want} among ${seen.join(', ')}`);
    }
    const patches = stub.requests.filter((r) => r.method === 'PATCH').map((r) => r.body);
    assert.deepEqual(patches, [{ feeCapBps: 500 }, { feeCapBps: 1001 }, { status: 'suspended' }, { status: 'active' }]);
    const create = stub.requests.find((r) => r.method === 'POST' && r.path === '/admin/v1/accounts');
    assert.equal(create?.contentType, 'application/json');
    assert.deepEqual(Object.keys(create?.body as object).sort(), ['feeCapBps', 'name']);
    // Bodiless requests carry no JSON content type (servers reject an empty JSON body).
    for (const r of stub.requests.filter((x) => x.method === 'DELETE' || x.method === 'GET')) {
      assert.equal(r.contentType, undefined);
      assert.equal(r.body, undefined);
    }
  });

  it('a wrong admin token is reported (exit 1) with the server error code and request id', async () => {
    const r = await runInProcess(['list-accounts'], cliEnv({ DATA_DIR: tempDir(), HUSH_OPS_URL: stub.url, HUSH_ADMIN_TOKEN: 'wrong' }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /UNAUTHORIZED/);
    assert.match(r.stderr, /requestId [0-9a-f-]{36}/);
    assert.equal(r.stdout, '');
  });
});
