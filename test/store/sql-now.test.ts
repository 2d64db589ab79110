/**
 * SQL's now() becomes a parameter the clock fills (src/store/sql-now.ts, clocked-db.ts): the rewrite of a
 * statement's text, and the scan that keeps the server's other clock readers out of src/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';
import { clockedDb } from '../../src/store/clocked-db.ts';
import type { Db } from '../../src/store/db.ts';
import { bindNow } from '../../src/store/sql-now.ts';
import { ManualClock } from '../support/manual-clock.ts';

it('every now() of a text becomes one parameter, one past the highest the text uses', () => {
  assert.deepEqual(bindNow('SELECT now()'), { text: 'SELECT $1::timestamptz', param: 1 });
  assert.deepEqual(bindNow('UPDATE t SET a = $2, until = NOW ( ) + make_interval(secs => $1) WHERE until < now()'), {
    text: 'UPDATE t SET a = $2, until = $3::timestamptz + make_interval(secs => $1) WHERE until < $3::timestamptz',
    param: 3,
  });
  assert.deepEqual(bindNow('SELECT $10::int, now()::date, $9'), { text: 'SELECT $10::int, $11::timestamptz::date, $9', param: 11 });
});

it('a now() or a $n that is not a call or a parameter is left alone', () => {
  const untouched = [
    `SELECT 'now()', 'it''s now()', E'\\' now()', "now()" FROM t`,
    'SELECT 1 -- now()\n',
    'SELECT /* now() /* nested now() */ still */ 1',
    'SELECT $$ now() $$, $body$ now() $1 $body$',
    'SELECT snow(), x.now(), now_ms(), knows()',
    'SELECT 1',
  ];
  for (const sql of untouched) assert.equal(bindNow(sql), null, sql);
  // What follows a literal or a comment is read again.
  assert.deepEqual(bindNow("SELECT 'x', $1 -- $7\n, now() /* $8 */"), { text: "SELECT 'x', $1 -- $7\n, $2::timestamptz /* $8 */", param: 2 });
  assert.deepEqual(bindNow('SELECT $$ $5 $$, now()'), { text: 'SELECT $$ $5 $$, $1::timestamptz', param: 1 });
});

/** A Db that records what it was sent. */
function recording(): { db: Db; sent: { sql: string; params: unknown[] | undefined }[] } {
  const sent: { sql: string; params: unknown[] | undefined }[] = [];
  const query = async (sql: string, params?: unknown[]) => {
    sent.push({ sql, params });
    return { rows: [], rowCount: 0 };
  };
  const db: Db = {
    kind: 'pglite',
    query,
    transaction: (fn) => fn({ query }),
    listen: async () => async () => {},
    exec: async (sql) => void sent.push({ sql, params: undefined }),
    close: async () => {},
  };
  return { db, sent };
}

it('the store on a clock sends a text without now() as it is, and binds the clock to one with it, in a transaction too', async () => {
  const { db, sent } = recording();
  const clock = new ManualClock(Date.UTC(2040, 0, 1));
  const store = clockedDb(db, clock);
  const params = ['a', 2];
  await store.query('SELECT $1, $2', params);
  await store.query('SELECT 1');
  await store.query('SELECT $1, now()', ['a']);
  clock.advance(1_000);
  await store.transaction((tx) => tx.query('SELECT now() AS at'));
  assert.deepEqual(sent, [
    { sql: 'SELECT $1, $2', params },
    { sql: 'SELECT 1', params: undefined },
    { sql: 'SELECT $1, $2::timestamptz', params: ['a', new Date(Date.UTC(2040, 0, 1))] },
    { sql: 'SELECT $1::timestamptz AS at', params: [new Date(Date.UTC(2040, 0, 1, 0, 0, 1))] },
  ]);
  assert.equal(sent[0]!.params, params, 'the very same parameters');
  await assert.rejects(store.query('SELECT $2, now()', ['a']), /uses \$1…\$2 but was given 1 parameters/);
  // A script runs as written, without parameters: it may not read the time.
  await assert.rejects(store.exec('CREATE TABLE t (at timestamptz DEFAULT now())'), /cannot call now\(\)/);
  await store.exec('CREATE TABLE t (at timestamptz)');
});

const SRC = join(import.meta.dirname, '../../src');
/** PostgreSQL's readers of its own clock other than now() (which the store binds): none may appear in src/. */
const SERVER_CLOCK = /\b(current_timestamp|current_date|current_time|localtimestamp|localtime|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\b|'now'\s*::|\b(?:timestamptz|timestamp|date|time)\s+'now'/gi;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|sql)$/.test(e.name) ? [join(dir, e.name)] : []));
}

it('no SQL of src/ reads the database server\'s clock other than through now()', () => {
  assert.deepEqual('a = clock_timestamp(), b = CURRENT_TIMESTAMP, c = \'now\'::timestamptz, d = localtime, e = timestamptz \'now\''.match(SERVER_CLOCK), ['clock_timestamp', 'CURRENT_TIMESTAMP', "'now'::", 'localtime', "timestamptz 'now'"]);
  // A TypeScript type that names the clock's now() is not SQL.
  assert.equal("clock: Pick<Clock, 'now'>".match(SERVER_CLOCK), null);
  const offenders = files(SRC).flatMap((f) => (readFileSync(f, 'utf8').match(SERVER_CLOCK) ?? []).map((m) => `${relative(SRC, f)}: ${m}`));
  assert.deepEqual(offenders, []);
});
