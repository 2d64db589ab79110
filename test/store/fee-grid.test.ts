/**
 * The fee grid's one row (migration 034, src/store/fee-grid-store.ts) and the release windows it reads, on both
 * engines; and the two processes' sides over one store: a worker's readings move the row compare-and-set
 * (FeeGridObserver), an API's quotes read it (FeeGridView) with one rung per class while a move is pending.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { GRID_RULE } from '../../src/domain/fee-grid.ts';
import { GRID_ANNOUNCE_MS } from '../../src/domain/fee-grid-shared.ts';
import { classKey } from '../../src/domain/class-release.ts';
import { openClassWindows, readFeeGrid, writeFeeGrid } from '../../src/store/fee-grid-store.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { FeeGridObserver } from '../../src/settlement/fee-grid-observer.ts';
import { FeeGridView } from '../../src/services/fee-grid-view.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';

const CONFIG = { feePricing: 'market' as const, computeUnitPriceMicroLamports: 1_000n, privacyMaxWaitS: 900 };

forEachEngine('the fee grid row', (ctx) => {
  it('is written once when absent, then only at the version read (compare-and-set)', async () => {
    const { db } = await ctx.fresh();
    assert.equal(await readFeeGrid(db), null);
    const g = { step: 4_000n, last: { at: 7, price: 9_000n }, above: { since: 5, sum2: 34_000n, ms: 2, late: { sum2: 0n, ms: 0 } }, below: null, observedAt: 7, pending: null };
    assert.equal(await writeFeeGrid(db, null, g), true);
    assert.equal(await writeFeeGrid(db, null, { ...g, step: 8_000n }), false, 'a second first write loses');
    const read = await readFeeGrid(db);
    assert.deepEqual(read, { version: 1, grid: g });
    assert.equal(await writeFeeGrid(db, 1, { ...g, step: 2_000n }), true);
    assert.equal(await writeFeeGrid(db, 1, { ...g, step: 16_000n }), false, 'a worker that read version 1 lost the race');
    assert.equal((await readFeeGrid(db))!.grid.step, 2_000n);
  });

  it('a row written under the lowest-reading rule keeps its rung and starts its watch afresh', async () => {
    const { db } = await ctx.fresh();
    const old = { step: '8000', above: { since: 5, low: '9000' }, below: null, observedAt: 7, pending: null };
    await db.query(`INSERT INTO fee_grid (id, version, state, updated_at) VALUES (1, 3, $1::jsonb, now())`, [JSON.stringify(old)]);
    assert.deepEqual(await readFeeGrid(db), { version: 3, grid: { step: 8_000n, last: null, above: null, below: null, observedAt: 7, pending: null } });
  });

  it("a class's window opens with its first open member's quote and ends at its latest due time", async () => {
    const { db } = await ctx.fresh();
    const acc = await createTestAccount(db);
    const key = (amount: bigint) => classKey({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: amount });
    const at = Date.UTC(2026, 5, 1);
    const place = async (amountIn: bigint, issuedAt: number, standard: boolean) => {
      const o = newOrder(acc, { amountIn, quote: { quoteId: `q_${Math.random()}`, issuedAt: new Date(issuedAt).toISOString(), privacy: { standard } }, expiration: new Date(at + 1_800_000) });
      await insertOrder(db, o, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    };
    await place(10_000_000n, at + 5_000, true);
    await place(10_000_000n, at, true);
    await place(20_000_000n, at, false);
    const windows = await openClassWindows(db, 900);
    assert.deepEqual(windows, [{ key: key(10_000_000n), openedAt: at, endsAt: at + 1_800_000 + 900_000 }], 'off the menu: no window');
  });

  it("a worker's sustained readings move the rung; the API quotes a class open before the move at the old one until it is in effect", async () => {
    const { db } = await ctx.fresh();
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const alerts: string[] = [];
    const observer = new FeeGridObserver({ db, clock, config: CONFIG, alert: (kind) => alerts.push(kind), log: () => {} });
    const view = new FeeGridView(db, CONFIG, clock);
    await observer.reading(1_500n);
    assert.equal((await readFeeGrid(db))!.grid.step, 2_000n, 'a fresh store with nothing quoted starts at the market');
    const acc = await createTestAccount(db);
    const o = newOrder(acc, { amountIn: 10_000_000n, quote: { quoteId: 'q_open', issuedAt: clock.date().toISOString(), privacy: { standard: true } }, expiration: new Date(clock.now() + 1_800_000) });
    await insertOrder(db, o, { key: 'k-open', responseStatus: 200, responseBody: {} });
    const open = classKey({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n });
    for (let t = 0; t <= GRID_RULE.upAfterMs + 10_000; t += 10_000) (clock.advance(10_000), await observer.reading(30_000n));
    const pending = (await readFeeGrid(db))!.grid.pending;
    assert.deepEqual([pending?.from, pending?.to], [2_000n, 32_000n], 'the market stayed above for the up delay: a move');
    assert.ok(alerts.includes('network_fee_short'), 'the flat figure no longer covers the market: an ALERT');
    clock.advance(GRID_ANNOUNCE_MS);
    await view.refresh();
    assert.equal(view.priceFor(open), 2_000n, 'the open class keeps the old rung to its release');
    assert.equal(view.priceFor(null), 32_000n, 'an amount off the menu, or a class with no open window, the new one');
    await db.query(`UPDATE orders SET status = 'expired' WHERE id = (SELECT id FROM orders WHERE tracking_id = $1)`, [o.trackingId]);
    clock.advance(10_000);
    await observer.reading(30_000n);
    assert.equal((await readFeeGrid(db))!.grid.step, 32_000n, 'no window quoted at the old rung is left: in effect');
    await view.refresh();
    assert.equal(view.priceFor(open), 32_000n);
  });
});
