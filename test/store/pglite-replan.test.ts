/**
 * PGlite has no autovacuum to invalidate cached plans, so a new store's generic plans (made for empty tables)
 * would scan whole tables for the life of the process. The store has its statements planned again when a table
 * has doubled or halved (src/store/pglite-replan.ts). Time is injected: the test calls the check the timer makes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { depositIdentitySpans } from '../../src/store/deposit-identities-store.ts';
import { openPgliteDb } from '../../src/store/pglite-db.ts';
import { outgrown, REPLAN_FLOOR_PAGES, replanAsTablesGrow } from '../../src/store/pglite-replan.ts';
import { createTestAccount, fakeAddress } from '../support/store-fixtures.ts';
import { systemClock } from '../../src/support/clock.ts';

describe('a table that doubled or halved has the plans made again', () => {
  const F = REPLAN_FLOOR_PAGES;
  it('counts from the floor, both ways, a new table as one at the floor', () => {
    const planned = new Map([['orders', 100], ['small', 2]]);
    assert.equal(outgrown(planned, new Map([['orders', 200], ['small', 2 * F]])), false, 'doubled exactly, and a small table up to twice the floor');
    assert.equal(outgrown(planned, new Map([['orders', 201]])), true, 'more than doubled');
    assert.equal(outgrown(planned, new Map([['orders', 49]])), true, 'less than half');
    assert.equal(outgrown(planned, new Map([['orders', 50]])), false);
    assert.equal(outgrown(planned, new Map([['small', 2 * F + 1]])), true, 'a small table past twice the floor');
    assert.equal(outgrown(planned, new Map([['fresh', 2 * F]])), false, 'a table not seen before counts as planned at the floor');
    assert.equal(outgrown(planned, new Map([['fresh', 2 * F + 1]])), true);
    assert.equal(outgrown(new Map([['t', F]]), new Map([['t', 0]])), false, 'emptied below the floor: nothing to gain');
  });
});

describe('PGlite plans again as the orders grow', () => {
  let db: Db;
  before(async () => {
    // The store's own check stays out of the way: this test makes its own and calls it.
    db = await openPgliteDb(null, { clock: systemClock, replanCheckMs: 3_600_000 });
  });
  after(() => db.close());

  // The shape of the order insert's deposit-address check (orders-store.ts), as a statement of its own.
  const LOOKUP = `SELECT a FROM (VALUES ($1::text), ($2::text), ($3::text)) AS v(a) WHERE a IS NOT NULL
    AND (EXISTS (SELECT 1 FROM orders WHERE deposit_owner = a) OR EXISTS (SELECT 1 FROM orders WHERE deposit_account = a))`;
  const lookup = async (a: string[]) => new Set((await db.query<{ a: string }>(LOOKUP, [a[0], a[1] ?? null, a[2] ?? null])).rows.map((r) => r.a));

  const plan = async () => {
    const { rows } = await db.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE statement LIKE 'SELECT a FROM (VALUES ($1::text)%'`);
    const explained = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${rows[0]!.name}('${fakeAddress()}', '${fakeAddress()}', NULL)`);
    return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
  };

  it("a lookup planned on the empty store scans the orders, and uses the indexes once they have grown", async () => {
    const replanner = replanAsTablesGrow(db, systemClock, 3_600_000);
    try {
      for (let i = 0; i < 12; i++) await lookup([fakeAddress(), fakeAddress()]);
      assert.match(await plan(), /Seq Scan on orders/, 'the generic plan of an empty table');
      assert.equal(await replanner.check(), false, 'nothing grew');
      const acc = await createTestAccount(db);
      await db.query(
        `INSERT INTO orders (tracking_id, account_id, quote_key, quote, status, source_asset_id, destination_asset_id, mode, amount_in, amount_out,
           service_fee, partner_fee, network_fee, fee_bps, sender, recipient, deposit_owner, deposit_account, expiration, tx_blockhash,
           tx_last_valid_block_height, tx_expires_at_slot, created_at, updated_at, next_run_at)
         SELECT 'trk_' || translate(lpad(g::text, 22, 'A'), '0', 'z'), $1, 'q' || g, '{}'::jsonb, 'awaiting_deposit', 'usdc', 'usdc', 'exact_in', 1, 1, 0, 0, 0, 0,
           's' || g, 'r' || g, md5('o' || g), md5('a' || g), now() + interval '1 hour', 'b', 1, 1, now(), now(), now()
         FROM generate_series(1, 20000) g`,
        [acc],
      );
      assert.match(await plan(), /Seq Scan on orders/, 'nothing invalidates it by itself');
      assert.equal(await replanner.check(), true, 'the orders more than doubled');
      const replanned = await plan();
      assert.doesNotMatch(replanned, /Seq Scan on orders/);
      assert.match(replanned, /Index Only Scan using orders_deposit_owner/);
      assert.equal(await replanner.check(), false, 'once per doubling');
      const owner = (await db.query<{ o: string }>('SELECT deposit_owner AS o FROM orders ORDER BY id LIMIT 1')).rows[0]!.o;
      assert.deepEqual([...(await lookup([fakeAddress(), owner]))], [owner], 'the same answers on the new plan');
    } finally {
      replanner.stop();
    }
  });

  it('the deposit identities’ levels, read some ten times a second while the pool refills, keep their plan too', async () => {
    const assets = [1, 2, 3, 4].map(() => ({ mint: fakeAddress(), tokenProgram: fakeAddress() }));
    for (let i = 0; i < 12; i++) assert.deepEqual([...(await depositIdentitySpans(db, assets)).values()], [0, 0, 0, 0]);
    const { rows } = await db.query<{ generic: string; custom: string }>(
      `SELECT generic_plans::text AS generic, custom_plans::text AS custom FROM pg_prepared_statements WHERE statement LIKE 'SELECT v.mint, v.token_program,%'`,
    );
    assert.equal(rows.length, 1);
    assert.ok(Number(rows[0]!.custom) <= 5 && Number(rows[0]!.generic) >= 7, `custom ${rows[0]!.custom}, generic ${rows[0]!.generic}`);
  });
});
