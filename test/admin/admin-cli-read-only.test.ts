/**
 * Read-only admin commands never create or migrate a store (issue 37): against an empty or mistyped
 * PostgreSQL schema, or a DATA_DIR with no PGlite store, they answer one line naming the place and exit 1,
 * and the place is as empty afterwards as before.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL, dropSchema, newSchemaName, postgresSkipReason } from '../support/databases.ts';
import { cliEnv, closedPortUrl, json, runChild, runInProcess, tempDir } from './admin-cli-harness.ts';

const READ_ONLY = [['list-accounts'], ['show-account', 'acc_1111111111111111'], ['treasury'], ['reconcile']];
const NO_STORE = /^error: no Hush store at .+ \(schema (\w+) has no migrations table\): check DATABASE_URL \/ DATA_DIR\n$/;

/** The tables of a schema, and whether it exists at all. */
async function schemaState(schema: string): Promise<{ exists: boolean; tables: number }> {
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  try {
    const exists = (await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
    const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [schema]);
    return { exists, tables: rows[0]!.n };
  } finally {
    await c.end();
  }
}

function searchPathUrl(schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

describe('admin CLI: read-only commands against a PostgreSQL schema with no store', { skip: postgresSkipReason ?? false }, () => {
  const empty = newSchemaName();
  before(async () => {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(`CREATE SCHEMA ${empty}`).finally(() => c.end());
  });
  after(() => dropSchema(empty));

  it('an empty schema named in DATABASE_URL stays empty; each command answers one line naming it (exit 1)', async () => {
    assert.deepEqual(await schemaState(empty), { exists: true, tables: 0 });
    const env = cliEnv({ DATABASE_URL: searchPathUrl(empty), DATA_DIR: tempDir() });
    for (const args of READ_ONLY) {
      const r = await runInProcess(args, env);
      assert.equal(r.code, 1, `${args[0]}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(NO_STORE.exec(r.stderr)?.[1], empty, `${args[0]}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /postgres@/, 'the user (and any password) is not echoed');
    }
    assert.deepEqual(await schemaState(empty), { exists: true, tables: 0 }, 'no table was created');
  });

  it('as `npm run admin` runs it (child process): the same line, the schema still empty', async () => {
    const r = await runChild(['list-accounts'], cliEnv({ DATABASE_URL: searchPathUrl(empty), DATA_DIR: tempDir() }));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(NO_STORE.exec(r.stderr)?.[1], empty, r.stderr);
    assert.deepEqual(await schemaState(empty), { exists: true, tables: 0 });
  });

  it('a mistyped schema (DATABASE_SCHEMA or search_path) is named and not created', async () => {
    const typo = newSchemaName();
    try {
      for (const env of [
        cliEnv({ DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: typo, DATA_DIR: tempDir() }),
        cliEnv({ DATABASE_URL: searchPathUrl(typo), DATA_DIR: tempDir() }),
      ]) {
        const r = await runInProcess(['list-accounts'], env);
        assert.equal(r.code, 1, r.stdout + r.stderr);
        assert.equal(NO_STORE.exec(r.stderr)?.[1], typo, r.stderr);
        assert.deepEqual(await schemaState(typo), { exists: false, tables: 0 });
      }
    } finally {
      await dropSchema(typo);
    }
  });

  it('a write command still makes the store; read-only commands then read it', async () => {
    const schema = newSchemaName();
    try {
      const env = cliEnv({ DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema, DATA_DIR: tempDir() });
      const created = json(await runInProcess(['create-account', 'Later Co'], env));
      assert.ok((await schemaState(schema)).tables > 0);
      assert.deepEqual(json(await runInProcess(['list-accounts'], env)).accounts.map((a: { accountId: string }) => a.accountId), [created.accountId]);
    } finally {
      await dropSchema(schema);
    }
  });
});

describe('admin CLI: read-only commands against a DATA_DIR with no PGlite store', () => {
  it('an empty DATA_DIR stays empty, a missing one missing; each command answers one line (exit 1)', async () => {
    const dataDir = tempDir();
    const missing = join(tempDir(), 'not-there');
    for (const dir of [dataDir, missing]) {
      const env = cliEnv({ DATA_DIR: dir, HUSH_OPS_URL: await closedPortUrl() });
      for (const args of READ_ONLY) {
        const r = await runInProcess(args, env);
        assert.equal(r.code, 1, `${args[0]}: ${r.stdout}${r.stderr}`);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, `error: no Hush store at ${join(dir, 'pgdata')} (no PGlite store there): check DATABASE_URL / DATA_DIR\n`);
      }
    }
    assert.deepEqual(readdirSync(dataDir), [], 'nothing was created in DATA_DIR');
    assert.equal(existsSync(missing), false);
  });
});
