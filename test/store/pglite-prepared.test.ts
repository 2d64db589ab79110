/**
 * Issue 56: PGlite runs each SQL text as a named prepared statement after its first use (pglite-prepared.ts).
 * A prepared statement must answer exactly what an unprepared one does: the same rows and types, the same
 * errors (a unique violation names its constraint), inside a transaction and out, and after a script has
 * changed the table under it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite, protocol } from '@electric-sql/pglite';
import fc from 'fast-check';
import type { Db } from '../../src/store/db.ts';
import { isStoreUnavailable, isUniqueViolation } from '../../src/store/db.ts';
import { openPgliteDb } from '../../src/store/pglite-db.ts';
import { bindMessage } from '../../src/store/pglite-prepared.ts';
import { systemClock } from '../../src/support/clock.ts';

describe('PGlite prepared statements', () => {
  let db: Db;
  before(async () => {
    db = await openPgliteDb(null, { clock: systemClock, fromScratch: true });
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, amount numeric(40,0) NOT NULL, meta jsonb, at timestamptz, CONSTRAINT t_amount_positive CHECK (amount > 0))');
  });
  after(() => db.close());

  const prepared = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'hush_%'")).rows[0]!.n;

  it('its Bind message is byte for byte PGlite’s own serializer’s, for any text, empty or null values', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.array(fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: null }), { maxLength: 30 }), (name, values) => {
        const ours = Buffer.from(bindMessage(name.replace(/\0/g, ''), values));
        const theirs = Buffer.from(protocol.serialize.bind({ statement: name.replace(/\0/g, ''), values: values as string[] }));
        assert.equal(ours.toString('hex'), theirs.toString('hex'));
      }),
    );
  });

  it('a statement used again answers from its prepared form: the same rows, types and counts', async () => {
    const insert = 'INSERT INTO t (id, amount, meta, at) VALUES ($1, $2, $3, $4)';
    const big = 123456789012345678901234567890n;
    const first = await db.query(insert, [1, big.toString(), JSON.stringify({ a: 1 }), new Date('2026-11-26T00:00:00Z')]);
    const before = await prepared();
    const second = await db.query(insert, [2, '5', null, null]);
    assert.equal(await prepared(), before, 'the second use prepared nothing new');
    assert.equal(first.rowCount, 1);
    assert.equal(second.rowCount, 1);
    const select = 'SELECT id, amount, meta, at FROM t WHERE id = ANY($1::int[]) ORDER BY id';
    for (let round = 0; round < 2; round++) {
      const { rows, rowCount } = await db.query<{ id: number; amount: string; meta: unknown; at: Date | null }>(select, [[1, 2]]);
      assert.equal(rowCount, 2);
      assert.deepEqual(rows[0], { id: 1, amount: big.toString(), meta: { a: 1 }, at: new Date('2026-11-26T00:00:00Z') });
      assert.deepEqual(rows[1], { id: 2, amount: '5', meta: null, at: null });
    }
    const update = await db.query('UPDATE t SET amount = amount + 1 WHERE id > $1', [0]);
    assert.equal(update.rowCount, 2, 'rows affected, as pg reports them');
  });

  it('an error keeps its code and constraint, and the statement works again after it, in a transaction and out', async () => {
    const insert = 'INSERT INTO t (id, amount) VALUES ($1, $2)';
    await db.query(insert, [10, '1']);
    await assert.rejects(db.query(insert, [10, '1']), (e) => isUniqueViolation(e, 't_pkey'));
    await assert.rejects(db.query(insert, [11, '0']), (e: { code?: string; constraint?: string }) => e.code === '23514' && e.constraint === 't_amount_positive');
    await db.query(insert, [11, '2']);
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query(insert, [12, '1']);
        await tx.query(insert, [12, '1']);
      }),
      (e) => isUniqueViolation(e, 't_pkey'),
    );
    assert.equal((await db.query('SELECT id FROM t WHERE id = $1', [12])).rowCount, 0, 'the transaction rolled back');
    const committed = await db.transaction(async (tx) => {
      await tx.query(insert, [12, '1']);
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id >= $1', [10])).rows[0]!.n;
    });
    assert.equal(committed, 3);
  });

  it('a script that changes a table drops the prepared statements: SELECT * then answers the new shape', async () => {
    const all = 'SELECT * FROM t WHERE id = $1';
    assert.deepEqual(Object.keys((await db.query(all, [1])).rows[0]!), ['id', 'amount', 'meta', 'at']);
    await db.exec('ALTER TABLE t ADD COLUMN note text');
    assert.deepEqual(Object.keys((await db.query(all, [1])).rows[0]!), ['id', 'amount', 'meta', 'at', 'note']);
  });

  it('a syntax error prepares nothing; texts beyond the kept number run and are closed again', async () => {
    const before = await prepared();
    await assert.rejects(db.query('SELEC 1 WHERE $1', [1]), (e: { code?: string }) => e.code === '42601');
    assert.equal(await prepared(), before);
    for (let i = 0; i < 300; i++) assert.equal((await db.query<{ v: number }>(`SELECT $1::int + ${i} AS v`, [1])).rows[0]!.v, i + 1);
    assert.ok((await prepared()) <= 256, 'no more kept than the cap');
  });

  it('a closed store answers as PGlite does: unavailable, not a crash', async () => {
    const closed = await openPgliteDb(null, { clock: systemClock, fromScratch: true });
    await closed.query('SELECT 1');
    await closed.close();
    await assert.rejects(closed.query('SELECT 1'), (e) => isStoreUnavailable(e));
  });

  it('two stores on one PGlite share its statements without clashing names', async () => {
    const pg = new PGlite();
    await pg.waitReady;
    try {
      const { preparedStatements } = await import('../../src/store/pglite-prepared.ts');
      assert.equal(preparedStatements(pg), preparedStatements(pg));
    } finally {
      await pg.close();
    }
  });
});
