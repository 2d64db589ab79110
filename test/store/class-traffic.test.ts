/** Deposits per standard class over a recent window: what the quote's privacy estimate is made from. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';
import { recentClassCounts, recentClassTraffic, SENDER_DETAIL_MAX } from '../../src/store/class-traffic-store.ts';
import { insertOrder, type NewOrder } from '../../src/store/orders-store.ts';
import { ClassTraffic } from '../../src/services/class-traffic.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, fakeAddress, newOrder } from '../support/store-fixtures.ts';
import { systemClock } from '../../src/support/clock.ts';
import type { Queryable } from '../../src/store/db.ts';

/** The order's exact deposit taken into its class and paid: what a class's traffic counts. */
async function take(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE orders SET status = 'completed', deposit = jsonb_build_object('amount', amount_in::text) WHERE id = $1`, [id]);
}

forEachEngine('class traffic', (ctx) => {
  async function order(acc: string, o: Partial<NewOrder>, deposited: boolean, agoS = 0): Promise<void> {
    const createdAt = new Date(Date.now() - agoS * 1000);
    const res = await insertOrder(ctx.db, newOrder(acc, { createdAt, ...o }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    if (deposited) await take(ctx.db, (res as { id: string }).id);
  }

  it('counts deposited orders per class, pinned by mode, within the window and the given amounts only', async () => {
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

  it('counts by age bucket when asked: byAge[i] were created i buckets ago', async () => {
    const acc = await createTestAccount(ctx.db);
    // 1,000 USDC: a class of this test's own (the store keeps the other tests' orders).
    const thousand = { amountIn: 1_000_000_000n, amountOut: 999_000_000n };
    await order(acc, thousand, true, 5);
    await order(acc, thousand, true, 25);
    await order(acc, thousand, true, 26);
    const [c] = await recentClassCounts(ctx.db, new Date(Date.now() - 3600_000), [1_000_000_000n], { now: new Date(), bucketMs: 10_000 });
    assert.equal(c!.deposits, 3);
    assert.deepEqual(c!.byAge, [1, 0, 2]);
  });

  it("ages a deposit from its confirmation, when Hush can first count it, not from its order's creation", async () => {
    const acc = await createTestAccount(ctx.db);
    // 3,000 USDC: a class of this test's own.
    const cls = { amountIn: 3_000_000_000n, amountOut: 2_990_000_000n };
    // Ordered a minute ago, its deposit confirmed 5 s ago (a wallet's time to sign, Hush's to confirm): aged from
    // its order it left the newest buckets empty, and a busy class read as one whose traffic had stopped.
    const res = (await insertOrder(ctx.db, newOrder(acc, { ...cls, createdAt: new Date(Date.now() - 60_000) }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string };
    await ctx.db.query(`UPDATE orders SET status = 'completed', deposit = jsonb_build_object('amount', amount_in::text, 'confirmedAt', $2::text) WHERE id = $1`, [res.id, new Date(Date.now() - 5_000).toISOString()]);
    await order(acc, cls, true, 25); // no confirmation time recorded: aged from its creation
    const since = new Date(Date.now() - 3600_000);
    const buckets = { now: new Date(), bucketMs: 10_000 };
    const [counted] = await recentClassCounts(ctx.db, since, [3_000_000_000n], buckets);
    assert.deepEqual(counted!.byAge, [1, 0, 1]);
    const [read] = await recentClassTraffic(ctx.db, since, [3_000_000_000n], buckets);
    assert.deepEqual(read!.byAge, [1, 0, 1]);
  });

  it("a sender's own deposits are no company for it: left out with a release's opener, and from its own quote", async () => {
    const acc = await createTestAccount(ctx.db);
    // 1,000 USDC exact_out: a class of this test's own.
    const cls = { mode: 'exact_out' as const, amountIn: 1_001_000_000n, amountOut: 1_000_000_000n };
    const key = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_out', pinnedAmount: 1_000_000_000n };
    const me = fakeAddress();
    const other = fakeAddress();
    const ids: string[] = [];
    for (const [sender, agoS] of [[me, 300], [me, 200], [other, 100], [me, 5]] as const) {
      const res = (await insertOrder(ctx.db, newOrder(acc, { ...cls, sender, createdAt: new Date(Date.now() - agoS * 1000) }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string };
      await take(ctx.db, res.id);
      ids.push(res.id);
    }
    const since = new Date(Date.now() - 3600_000);
    const buckets = { now: new Date(), bucketMs: 10_000 };
    // 1,000 USDC exact_in is another test's class: this one's is exact_out.
    const mine = <T extends { mode: string }>(cs: T[]) => cs.filter((c) => c.mode === 'exact_out');
    const [all] = mine(await recentClassCounts(ctx.db, since, [1_000_000_000n], buckets));
    assert.equal(all!.deposits, 4);
    // The release's opener is my newest: my two earlier sends go out with it; only the other sender's counts.
    const [others] = mine(await recentClassCounts(ctx.db, since, [1_000_000_000n], buckets, [ids[3]!]));
    assert.deepEqual([others!.deposits, others!.byAge[10]], [1, 1]);
    const [detail] = mine(await recentClassTraffic(ctx.db, since, [1_000_000_000n], buckets));
    assert.deepEqual([detail!.deposits, detail!.bySender?.get(me)?.reduce((a, b) => a + b, 0), detail!.bySender?.get(other)?.[10]], [4, 3, 1]);
    const traffic = new ClassTraffic(ctx.db, loadAssets(), systemClock, 3600, 30);
    await traffic.refresh();
    assert.equal(traffic.arrivalsOf(key)!.seen, 4, 'anybody else quoting sees all four');
    assert.equal(traffic.arrivalsOf(key, me)!.seen, 1, 'my quote sees the other sender only');
    assert.equal(traffic.arrivalsOf(key, other)!.seen, 3);
  });

  it('in a busy class the store keeps by sender only the senders that repeat: a wallet sending again is still left out of its own quote', async () => {
    const { db } = await ctx.fresh();
    const acc = await createTestAccount(db);
    const cls = { amountIn: 100_000_000n, amountOut: 99_000_000n };
    const repeater = fakeAddress();
    const place = async (sender: ReturnType<typeof fakeAddress>, agoS: number) => {
      const res = (await insertOrder(db, newOrder(acc, { ...cls, sender, createdAt: new Date(Date.now() - agoS * 1000) }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string };
      await take(db, res.id);
    };
    for (let i = 0; i < SENDER_DETAIL_MAX; i++) await place(fakeAddress(), 10 + i * 20);
    for (let i = 0; i < 5; i++) await place(repeater, 15 + i * 20);
    const [c] = await recentClassTraffic(db, new Date(Date.now() - 3600_000), [100_000_000n], { now: new Date(), bucketMs: 10_000 });
    assert.equal(c!.deposits, SENDER_DETAIL_MAX + 5);
    assert.deepEqual([...c!.bySender!.keys()], [repeater], 'only the sender that repeats is kept apart');
    const traffic = new ClassTraffic(db, loadAssets(), systemClock, 3600, 30);
    await traffic.refresh();
    const key = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 100_000_000n };
    assert.equal(traffic.arrivalsOf(key, repeater)!.seen, SENDER_DETAIL_MAX);
    assert.equal(traffic.arrivalsOf(key, fakeAddress())!.seen, SENDER_DETAIL_MAX + 5);
  });

  it('ClassTraffic reads each class as arrivals, exposure (its window, a prior silence added) and dispersion: a burst is one episode', async () => {
    const acc = await createTestAccount(ctx.db);
    await order(acc, { amountIn: 1_000_000n, amountOut: 900_000n }, true, 3 * 3600); // Hush's first order, three hours ago
    // One instant for all six: inserted one by one at their own times, a loaded machine spreads them over
    // more than one of the window's 167 ms buckets.
    const burstAt = new Date(Date.now() - 50);
    for (let i = 0; i < 6; i++) await order(acc, { createdAt: burstAt, amountIn: 10_000_000n, amountOut: 9_900_000n }, true);
    const traffic = new ClassTraffic(ctx.db, loadAssets(), systemClock, 60, 30);
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n };
    assert.equal(traffic.arrivalsOf(cls), undefined, 'nothing until read');
    await traffic.refresh();
    const seen = traffic.arrivalsOf(cls)!;
    assert.equal(seen.arrivals, 6);
    assert.ok(Math.abs(seen.exposureMs - 90_000) < 1e-6, `the 60 s window and the 30 s prior silence: ${seen.exposureMs}`);
    // Six deposits in one bucket of 360: one episode of about six, not six independent arrivals.
    assert.ok(seen.dispersion > 5, `dispersion ${seen.dispersion}`);
    const idle = traffic.arrivalsOf({ ...cls, pinnedAmount: 100_000_000n })!;
    assert.deepEqual([idle.arrivals, Math.round(idle.exposureMs), idle.dispersion], [0, 90_000, 1], 'watched and idle');
  });

  it('a young Hush watches over its own life, a prior silence added: nothing before its first order', async () => {
    const { db } = await ctx.fresh(); // an empty store: the first order decides Hush's age
    const acc = await createTestAccount(db);
    const at = async (agoS: number) =>
      insertOrder(db, newOrder(acc, { createdAt: new Date(Date.now() - agoS * 1000), amountIn: 10_000_000n, amountOut: 9_900_000n }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} }).then((r) =>
        take(db, (r as { id: string }).id),
      );
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n };
    const empty = new ClassTraffic(db, loadAssets(), systemClock, 3600, 30);
    await empty.refresh();
    assert.equal(empty.arrivalsOf(cls), undefined, 'no order yet: nothing watched');
    await at(100);
    await at(10);
    const young = new ClassTraffic(db, loadAssets(), systemClock, 3600, 30);
    await young.refresh();
    const seen = young.arrivalsOf(cls)!;
    assert.equal(seen.arrivals, 2);
    assert.ok(Math.abs(seen.exposureMs - 130_000) < 2_000, `the 100 s Hush has seen and 30 s of prior silence, not the hour: ${seen.exposureMs}`);
    assert.equal(seen.dispersion, 1, 'two lone arrivals');
  });
  it('a young Hush reads its traffic every second (a crowd is seen by the next quotes), an older one at its own pace', async () => {
    const acc = await createTestAccount(ctx.db);
    // 10,000 USDC: a class of this test's own. The store's first order is older than this test; a prior
    // silence of ten days keeps Hush young, one of a second does not.
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000_000n };
    await order(acc, { amountIn: 1_000_000n, amountOut: 900_000n }, true);
    const young = new ClassTraffic(ctx.db, loadAssets(), systemClock, 3600, 864_000, Infinity, 600_000);
    const older = new ClassTraffic(ctx.db, loadAssets(), systemClock, 3600, 1, Infinity, 600_000);
    await Promise.all([young.refresh(), older.refresh()]);
    young.start();
    older.start();
    try {
      assert.equal(young.arrivalsOf(cls)!.arrivals, 0);
      await order(acc, { amountIn: 10_000_000_000n, amountOut: 9_990_000_000n }, true);
      const deadline = Date.now() + 5_000;
      while (young.arrivalsOf(cls)!.arrivals === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(young.arrivalsOf(cls)!.arrivals, 1, 'seen within a few seconds, not at the next ten-minute read');
      assert.equal(older.arrivalsOf(cls)!.arrivals, 0, 'an older Hush reads at its own pace');
    } finally {
      young.stop();
      older.stop();
    }
  });

  it('a young Hush reads its crowd: every class together, the class\'s own as the caller counts it, a sender\'s own left out; none once it is older', async () => {
    const { db } = await ctx.fresh();
    const acc = await createTestAccount(db);
    const tester = fakeAddress();
    const at = async (agoS: number, amountIn: bigint, sender = fakeAddress()) =>
      insertOrder(db, newOrder(acc, { createdAt: new Date(Date.now() - agoS * 1000), amountIn, amountOut: amountIn - 100_000n, sender }), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} }).then((r) =>
        take(db, (r as { id: string }).id),
      );
    for (const ago of [9, 7, 5]) await at(ago, 10_000_000n);
    for (const ago of [8, 6]) await at(ago, 100_000_000n);
    for (const ago of [4, 2]) await at(ago, 100_000_000n, tester);
    const cls = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', pinnedAmount: 10_000_000n };
    const young = new ClassTraffic(db, loadAssets(), systemClock, 3600, 60);
    await young.refresh();
    assert.equal(young.crowdOf(cls)!.arrivals, 7, 'both classes');
    assert.equal(young.crowdOf(cls, [1])!.arrivals, 5, 'the other class\'s four and the one the caller counts of its own');
    assert.equal(young.crowdOf(cls, [1], tester)!.arrivals, 3, 'the tester\'s own two are no crowd for it');
    const older = new ClassTraffic(db, loadAssets(), systemClock, 3600, 1);
    await older.refresh();
    assert.equal(older.crowdOf(cls), undefined, 'watched longer than its prior silence: no crowd is read');
  });
});
