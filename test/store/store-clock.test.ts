/**
 * The store's time is the clock port's (src/store/clocked-db.ts): what a statement compares with now() or
 * stamps with it is the clock's reading, on PGlite and PostgreSQL, never the database server's clock. The
 * clock here sits decades away from the wall clock (in the past, then in the future: it only moves
 * forward), so a server reading anywhere would show.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { recordScreening } from '../../src/store/screening-log-store.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { leaseOrder } from '../../src/store/settlement/lease-order.ts';
import { forEachEngine } from '../support/databases.ts';
import { readingClock } from '../support/manual-clock.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';
import { createTestAccount } from '../support/store-fixtures.ts';

const PAST = Date.UTC(2001, 1, 3, 4, 5, 6, 789);
const FUTURE = Date.UTC(2061, 6, 1, 12, 0, 0, 1);

async function lockedUntil(db: Db, id: string): Promise<number> {
  return (await db.query<{ t: Date }>('SELECT locked_until AS t FROM orders WHERE id = $1', [id])).rows[0]!.t.getTime();
}

forEachEngine('the store on the clock port', (ctx) => {
  // Only the readings move: a jump of sixty years on a clock that runs its timers would run the store's
  // periodic re-plan check millions of times on the way.
  let at = PAST;
  const clock = Object.assign(readingClock(() => at), {
    advance: (ms: number) => void (at += ms),
    set: (ms: number) => void (at = ms),
  });
  let db: Db;
  before(async () => {
    db = (await ctx.fresh({ clock })).db;
  });

  it("a statement's now() is the clock's reading, with parameters of its own or none", async () => {
    assert.equal((await db.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at.getTime(), PAST);
    const { rows } = await db.query<{ at: Date; later: Date; n: number }>(`SELECT now() AS at, now() + interval '1 day' AS later, $1::int AS n`, [7]);
    assert.deepEqual(rows[0], { at: new Date(PAST), later: new Date(PAST + 86_400_000), n: 7 });
  });

  it('a lease taken with now() + its length ends by the clock, not by the server', async () => {
    // Taken decades from the wall clock: a lease the server had dated, or one the server judged, would be
    // free at once or held for decades.
    const t0 = clock.now();
    const { id } = await orderIn(db, 'refunding');
    assert.equal(await leaseOrder(db, id, 'refunding', 'w1', 30), true);
    assert.equal(await lockedUntil(db, id), t0 + 30_000);
    clock.advance(29_999);
    assert.equal(await leaseOrder(db, id, 'refunding', 'w2', 30), false, 'still held at 29.999 s');
    clock.advance(2);
    assert.equal(await leaseOrder(db, id, 'refunding', 'w2', 30), true, 'free once its 30 s are over by the clock');
    assert.equal(await lockedUntil(db, id), t0 + 30_001 + 30_000);
  });

  it("a transaction's statements read the clock too, each when it is sent", async () => {
    const t0 = clock.now();
    const { id } = await orderIn(db, 'refunding');
    const seen = await db.transaction(async (tx) => {
      const first = (await tx.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at.getTime();
      clock.advance(1_500);
      const leased = await leaseOrder(tx, id, 'refunding', 'w1', 10);
      const second = (await tx.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at.getTime();
      return { first, leased, second };
    });
    assert.deepEqual(seen, { first: t0, leased: true, second: t0 + 1_500 });
    assert.equal(await lockedUntil(db, id), t0 + 1_500 + 10_000);
  });

  it("rows written by the store's functions are stamped with the clock's time", async () => {
    const t0 = clock.now();
    const account = await createTestAccount(db);
    const stamps = await db.query<{ created_at: Date; updated_at: Date }>('SELECT created_at, updated_at FROM accounts WHERE id = $1', [account]);
    assert.deepEqual(stamps.rows[0], { created_at: new Date(t0), updated_at: new Date(t0) });
    clock.set(FUTURE);
    assert.equal((await db.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at.getTime(), FUTURE);
    const { id } = await orderIn(db, 'awaiting_deposit');
    assert.equal((await db.query<{ t: Date }>('SELECT next_run_at AS t FROM orders WHERE id = $1', [id])).rows[0]!.t.getTime(), FUTURE, 'due at once, by the clock');
    const tx = await insertChainTx(db, newTx({ orderId: id }));
    const txRow = await db.query<{ created_at: Date; updated_at: Date }>('SELECT created_at, updated_at FROM chain_txs WHERE id = $1', [tx]);
    assert.deepEqual(txRow.rows[0], { created_at: new Date(FUTURE), updated_at: new Date(FUTURE) });
    await recordScreening(db, { trackingId: `trk_${id}`, stage: 'quote', result: 'clear', actor: 'hush' });
    const logged = await db.query<{ at: Date }>('SELECT at FROM screening_log WHERE tracking_id = $1', [`trk_${id}`]);
    assert.equal(logged.rows[0]!.at.getTime(), FUTURE);
  });

  it("no column default, function, view or index of the migrated schema reads the server's clock", async () => {
    const serverTime = `'%now()%'`;
    const { rows } = await ctx.db.query<{ what: string }>(
      // The schema's own objects are chosen first (OFFSET 0 keeps the planner from pushing the text tests below
      // it): deparsing another test's object while its schema is being dropped fails ("could not open relation").
      `WITH mine AS (SELECT c.oid, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                      WHERE n.nspname = current_schema() OFFSET 0)
       SELECT 'column ' || m.relname || '.' || a.attname AS what FROM mine m
         JOIN pg_attrdef d ON d.adrelid = m.oid JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
         WHERE pg_get_expr(d.adbin, d.adrelid) ILIKE ${serverTime}
       UNION ALL SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = current_schema() AND p.prosrc ILIKE ${serverTime}
       UNION ALL SELECT 'view ' || m.relname FROM mine m WHERE m.relkind = 'v' AND pg_get_viewdef(m.oid) ILIKE ${serverTime}
       UNION ALL SELECT 'index ' || m.relname FROM mine m WHERE m.relkind = 'i' AND pg_get_indexdef(m.oid) ILIKE ${serverTime}`,
    );
    assert.deepEqual(rows, []);
  });
});
