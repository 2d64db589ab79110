/** Deposits per standard class over a recent window: what the quote's privacy estimate is made from. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';
import { recentClassCounts } from '../../src/store/class-traffic-store.ts';
import { insertOrder, type NewOrder } from '../../src/store/orders-store.ts';
import { ClassTraffic } from '../../src/services/class-traffic.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

forEachEngine('class traffic', (ctx) => {
  async function order(acc: string, o: Partial<NewOrder>, deposited: boolean, agoS = 0): Promise<void> {
    const createdAt = new Date(Date.now() - agoS * 1000);
    const res = await insertOrder(ctx.db, newOrder(acc, { createdAt, ...o }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    if (deposited) await ctx.db.query(`UPDATE orders SET deposit = '{"amount":"1"}' WHERE id = $1`, [(res as { id: string }).id]);
  }

  it('counts deposited orders per class, pinned by mode, within the window and the given amounts only', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    const twenty = { amountIn: 20_000_000n, amountOut: 19_900_000n };
    for (let i = 0; i < 3; i++) await order(acc, twenty, true);
    await order(acc, twenty, false); // quoted and ordered, never deposited
    await order(acc, twenty, true, 7200); // outside the window
    await order(acc, { mode: 'exact_out', amountIn: 20_100_000n, amountOut: 20_000_000n }, true);
    await order(acc, { destinationAssetId: 'sol', amountIn: 20_000_000n, amountOut: 130_000_000n }, true);
    await order(acc, { amountIn: 19_370_000n, amountOut: 19_000_000n }, true); // a free amount
    const counts = await recentClassCounts(ctx.db, new Date(Date.now() - 3600_000), [20_000_000n, 10_000_000n]);
    const byKey = Object.fromEntries(counts.map((c) => [`${c.sourceAssetId}>${c.destinationAssetId}:${c.mode}:${c.pinnedAmount}`, c.deposits]));
    assert.deepEqual(byKey, { 'usdc>usdc:exact_in:20000000': 3, 'usdc>usdc:exact_out:20000000': 1, 'usdc>sol:exact_in:20000000': 1 });
    assert.deepEqual(await recentClassCounts(ctx.db, new Date(0), []), []);
  });

  it('ClassTraffic turns the counts into a rate per second over its window, once it has seen traffic long enough to measure', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    await order(acc, { amountIn: 1_000_000n, amountOut: 900_000n }, true, 3 * 3600); // Hush's first order, three hours ago
    for (let i = 0; i < 6; i++) await order(acc, { amountIn: 10_000_000n, amountOut: 9_900_000n }, true);
    const traffic = new ClassTraffic(ctx.db, loadAssets(), 60, 30);
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n };
    assert.equal(traffic.ratePerS(cls), undefined, 'unmeasured until read');
    await traffic.refresh();
    assert.equal(traffic.ratePerS(cls), 6 / 60);
    assert.equal(traffic.rateOfKey('usdc>usdc:exact_in:10000000'), 6 / 60);
    assert.equal(traffic.ratePerS({ ...cls, pinnedAmount: 100_000_000n }), 0, 'measured and idle');
  });

  it('a young Hush measures over its own life, and nothing before it has seen traffic for the minimum span', async () => {
    const { db } = await ctx.fresh(); // an empty store: the first order decides Hush's age
    const acc = await createTestAccount(db);
    const at = async (agoS: number) =>
      insertOrder(db, newOrder(acc, { createdAt: new Date(Date.now() - agoS * 1000), amountIn: 10_000_000n, amountOut: 9_900_000n }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} }).then((r) =>
        db.query(`UPDATE orders SET deposit = '{"amount":"1"}' WHERE id = $1`, [(r as { id: string }).id]),
      );
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n };
    const empty = new ClassTraffic(db, loadAssets(), 3600, 30);
    await empty.refresh();
    assert.equal(empty.ratePerS(cls), undefined, 'no order yet: nothing measured');
    await at(100);
    await at(10);
    const young = new ClassTraffic(db, loadAssets(), 3600, 30);
    await young.refresh();
    const rate = young.ratePerS(cls)!;
    assert.ok(Math.abs(rate - 2 / 100) < 0.002, `two deposits over the 100 s Hush has seen, not over the hour: ${rate}`);
    const cold = new ClassTraffic(db, loadAssets(), 3600, 600);
    await cold.refresh();
    assert.equal(cold.ratePerS(cls), undefined, '100 s is less than the 600 s minimum');
  });
});
