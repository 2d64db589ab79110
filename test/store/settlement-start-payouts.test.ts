/** startPayouts (src/store/settlement/start-payouts.ts): payouts recorded and orders moved to `sending` together. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { chainTxsOfOrder } from '../../src/store/settlement/chain-txs-of-orders.ts';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { startPayouts } from '../../src/store/settlement/start-payouts.ts';
import { forEachEngine } from '../support/databases.ts';
import { historyOf, newTx, orderIn, orderRow } from '../support/settlement-fixtures.ts';

forEachEngine('startPayouts', (ctx) => {
  it('records the payouts of the orders this worker holds in deposit_confirmed and moves them; nothing of the others', async () => {
    const mine = await orderIn(ctx.db, 'deposit_confirmed');
    const theirs = await orderIn(ctx.db, 'deposit_confirmed');
    await claimOrder(ctx.db, mine.id, 'w1', 30);
    await claimOrder(ctx.db, theirs.id, 'w2', 30);
    const moved = await startPayouts(ctx.db, 'w1', [newTx({ orderId: mine.id }), newTx({ orderId: theirs.id })], 1_000);
    assert.deepEqual([...moved], [mine.id]);
    assert.equal((await orderRow(ctx.db, mine.id)).status, 'sending');
    assert.equal((await orderRow(ctx.db, mine.id)).locked_by, null, 'released');
    assert.equal((await historyOf(ctx.db, mine.id)).at(-1), 'sending');
    assert.equal((await chainTxsOfOrder(ctx.db, mine.id, 'payout')).length, 1);
    assert.equal((await chainTxsOfOrder(ctx.db, theirs.id, 'payout')).length, 0, 'no record without the move');
    assert.equal((await orderRow(ctx.db, theirs.id)).status, 'deposit_confirmed');
  });

  it('a private amount sent with no release decided (its fallback due time came first) goes as a release of its own; released and off-menu ones keep theirs', async () => {
    const privateQuote = { quoteId: 'q_private', privacy: { standard: true } };
    const fallback = await orderIn(ctx.db, 'deposit_confirmed', { quote: privateQuote });
    const released = await orderIn(ctx.db, 'deposit_confirmed', { quote: privateQuote });
    const offMenu = await orderIn(ctx.db, 'deposit_confirmed', { quote: { quoteId: 'q_free', privacy: { standard: false } } });
    const stamp = '2026-11-26 10:00:00.123456+00';
    await ctx.db.query(`UPDATE orders SET class_released_at = $2, class_release_size = 3 WHERE id = $1`, [released.id, stamp]);
    for (const o of [fallback, released, offMenu]) await claimOrder(ctx.db, o.id, 'w1', 30);
    const moved = await startPayouts(ctx.db, 'w1', [fallback, released, offMenu].map((o) => newTx({ orderId: o.id })), 1_000);
    assert.equal(moved.size, 3);
    const row = async (id: string) =>
      (await ctx.db.query<{ at: string | null; size: number | null; now: boolean }>(`SELECT class_released_at::text AS at, class_release_size AS size, class_released_at > now() - interval '1 minute' AS now FROM orders WHERE id = $1`, [id])).rows[0]!;
    const f = await row(fallback.id);
    assert.ok(f.now && f.size === 1, `stamped a release of one when sent: ${JSON.stringify(f)}`);
    assert.deepEqual({ ...(await row(released.id)), now: undefined }, { at: stamp, size: 3, now: undefined }, 'a decided release is kept');
    assert.deepEqual(await row(offMenu.id), { at: null, size: null, now: null }, 'an amount off the menu is never a release');
  });
});
