/**
 * A new PGlite store is a copy of the migrated template (src/store/pglite-template.ts): the same schema as
 * a store migrated from scratch, in memory and in a directory that keeps it; a template PGlite cannot load
 * is discarded and the store made from scratch, and the next store writes a good template again.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openPgliteDb } from '../../src/store/pglite-db.ts';
import { templateDirPath, templatePath } from '../../src/store/pglite-template.ts';
import { systemClock } from '../../src/support/clock.ts';

const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'hush-template-test-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Tables, columns, indexes, triggers and functions of the public schema, in a comparable form. */
async function schemaOf(db: Db): Promise<string[]> {
  const q = async (sql: string) => (await db.query<{ x: string }>(sql)).rows.map((r) => r.x);
  return [
    ...(await q(`SELECT table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':' || coalesce(column_default, '') AS x FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`)),
    ...(await q(`SELECT indexdef AS x FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`)),
    ...(await q(`SELECT tgname || ' on ' || tgrelid::regclass::text AS x FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`)),
    ...(await q(`SELECT p.proname AS x FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1`)),
    ...(await q(`SELECT version || ' ' || name AS x FROM schema_migrations ORDER BY version`)),
  ];
}

test('a store from the template has the schema of one migrated from scratch; a directory store keeps its data', async () => {
  const templateDir = scratch();
  const fromScratch = await openPgliteDb(null, { clock: systemClock, fromScratch: true, templateDir });
  await migrate(fromScratch);
  const expected = await schemaOf(fromScratch);
  await fromScratch.close();
  assert.ok(expected.length > 50, 'the schema has tables, indexes and triggers');
  assert.equal(existsSync(templatePath(templateDir)), false, 'from scratch: no template made');

  const inMemory = await openPgliteDb(null, { clock: systemClock, templateDir });
  assert.ok(existsSync(templatePath(templateDir)), 'the first new store made the template');
  assert.deepEqual(await migrate(inMemory), [], 'the template is migrated');
  assert.deepEqual(await schemaOf(inMemory), expected);
  await inMemory.close();

  const dir = join(scratch(), 'pgdata');
  assert.equal(existsSync(templateDirPath(templateDir)), false, 'no unpacked copy until a directory store needs one');
  const onDisk = await openPgliteDb(dir, { clock: systemClock, templateDir });
  assert.ok(existsSync(join(templateDirPath(templateDir), 'PG_VERSION')), 'a directory store is copied from the unpacked template');
  assert.deepEqual(await schemaOf(onDisk), expected);
  await onDisk.query(`CREATE TABLE kept (v text)`);
  await onDisk.query(`INSERT INTO kept VALUES ('written here')`);
  await onDisk.close();
  const reopened = await openPgliteDb(dir, { clock: systemClock, templateDir });
  assert.deepEqual((await reopened.query(`SELECT v FROM kept`)).rows, [{ v: 'written here' }], 'the directory store is the one written, not a new copy');
  await reopened.close();
});

test('a template PGlite cannot load is discarded: the store is made from scratch, and the next one writes a good template', async () => {
  const templateDir = scratch();
  writeFileSync(templatePath(templateDir), 'not a data directory');
  const dir = join(scratch(), 'pgdata');
  const db = await openPgliteDb(dir, { clock: systemClock, templateDir });
  assert.deepEqual((await db.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
  assert.ok((await migrate(db)).length > 0, 'made from scratch, so the migrations ran now');
  await db.close();
  assert.equal(existsSync(templatePath(templateDir)), false, 'the bad template is gone');
  assert.equal(existsSync(templateDirPath(templateDir)), false, 'and no unpacked copy of it was kept');
  const next = await openPgliteDb(null, { clock: systemClock, templateDir });
  assert.deepEqual(await migrate(next), []);
  await next.close();
  assert.ok(existsSync(templatePath(templateDir)), 'a good template again');
});
