/**
 * An in-memory store closed in a process is emptied and kept for the next one (src/store/pglite-spares.ts): the
 * next store reads as one made from the template — the same schema, no rows but the migrations', sequences
 * from their start, a clean session — and the closed one refuses every call, so nothing of a stopped
 * process reaches the next store.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/open-db.ts';
import { keptSpares } from '../../src/store/pglite-spares.ts';
import { systemClock } from '../../src/support/clock.ts';
import { createTestAccount } from '../support/store-fixtures.ts';
import '../support/store-spares.ts';

const open = () => openDb({ dataDir: null, clock: systemClock });

/** What a store holds that SQL can see: rows per table, each sequence's next value, the migrations applied. */
async function contentsOf(db: Db): Promise<string[]> {
  const tables = (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`)).rows.map((r) => r.t);
  const out: string[] = [];
  for (const t of tables) out.push(`${t}: ${(await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${t}`)).rows[0]!.n} rows`);
  const seqs = (await db.query<{ s: string }>(`SELECT sequencename AS s FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1`)).rows.map((r) => r.s);
  for (const s of seqs) out.push(`${s}: next ${(await db.query<{ v: string }>(`SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END::text AS v FROM ${s}`)).rows[0]!.v}`);
  out.push(...(await db.query<{ m: string }>(`SELECT version || ' ' || name AS m FROM schema_migrations ORDER BY version`)).rows.map((r) => r.m));
  return out;
}

test('a closed in-memory store comes back as the template: no rows, sequences from their start, a clean session', async () => {
  const first = await open();
  const asNew = await contentsOf(first);
  assert.ok(asNew.includes('orders: 0 rows') && asNew.includes('orders_id_seq: next 1') && asNew.some((l) => /initial/.test(l)), asNew.join('\n'));
  for (const l of asNew.filter((l) => / rows$/.test(l) && !l.startsWith('schema_migrations'))) assert.match(l, /: 0 rows$/, 'migrations write no rows of their own');

  await createTestAccount(first);
  await first.query(`SELECT nextval('orders_id_seq'), nextval('orders_id_seq')`);
  await first.query(`SELECT pg_advisory_lock(4242)`);
  await first.query(`SET statement_timeout = 1234`);
  let heardByClosed = 0;
  await first.listen('spare_check', () => heardByClosed++);
  await first.query(`BEGIN`); // left open, as a killed process leaves it
  assert.notDeepEqual(await contentsOf(first), asNew);

  const kept = keptSpares();
  await first.close();
  assert.equal(keptSpares(), kept + 1, 'the closed store is kept');
  await assert.rejects(first.query('SELECT 1'), /PGlite is closed/);
  await assert.rejects(first.transaction(async (tx) => tx.query('SELECT 1')), /PGlite is closed/);

  const second = await open();
  assert.equal(keptSpares(), kept, 'the next store is the kept one');
  try {
    assert.deepEqual(await contentsOf(second), asNew);
    assert.equal((await second.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(4242) AS ok`)).rows[0]!.ok, true, 'the closed store held no lock into the next');
    assert.equal((await second.query<{ v: string }>(`SELECT current_setting('statement_timeout') AS v`)).rows[0]!.v, '0');
    let heard = 0;
    await second.listen('spare_check', () => heard++);
    await second.query(`NOTIFY spare_check, 'x'`);
    await new Promise((r) => setImmediate(r));
    assert.equal(heard, 1);
    assert.equal(heardByClosed, 0, "the closed store's listener is gone");
    assert.equal((await second.query<{ id: string }>(`SELECT nextval('orders_id_seq')::text AS id`)).rows[0]!.id, '1', 'ids start again from 1');
  } finally {
    await second.close();
  }
});
