/**
 * The watchdog's query: an order past deposit that nothing moved for the window is stuck, but one whose
 * payout is still held by the privacy delay is not (it would otherwise be failed with its funds paid in).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrder } from '../../src/store/orders-store.ts';
import { stuckOrders } from '../../src/store/settlement/stuck-orders.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';

const HOUR_MS = 3_600_000;

forEachEngine('stuck orders (watchdog)', (ctx) => {
  it('counts from the last change, or from when a delayed payout fell due', async () => {
    const acc = await createTestAccount(ctx.db);
    const make = async (status: 'awaiting_deposit' | 'deposit_confirmed', changedAgo: string, dueIn: string | null) => {
      const res = await insertOrder(ctx.db, newOrder(acc), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
      assert.equal(res.kind, 'created');
      const id = (res as { id: string }).id;
      if (status === 'deposit_confirmed') {
        assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'));
        assert.ok(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed'));
      }
      await ctx.db.query(`UPDATE orders SET updated_at = now() - $2::interval, payout_due_at = now() + $3::interval WHERE id = $1`, [id, changedAgo, dueIn]);
      return id;
    };
    const stuck = await make('deposit_confirmed', '2 hours', null);
    const stuckDueLongAgo = await make('deposit_confirmed', '3 hours', '-2 hours');
    const heldByDelay = await make('deposit_confirmed', '2 hours', '10 minutes');
    const dueRecently = await make('deposit_confirmed', '2 hours', '-10 minutes');
    const fresh = await make('deposit_confirmed', '1 minute', null);
    const awaiting = await make('awaiting_deposit', '5 hours', null);

    const found = new Set((await stuckOrders(ctx.db, HOUR_MS)).map((o) => o.id));
    assert.ok(found.has(stuck), 'untouched for two hours');
    assert.ok(found.has(stuckDueLongAgo), 'due two hours ago and still not paid');
    assert.ok(!found.has(heldByDelay), 'its payout is not due yet: waiting, not stuck');
    assert.ok(!found.has(dueRecently), 'due ten minutes ago: within the window');
    assert.ok(!found.has(fresh));
    assert.ok(!found.has(awaiting), 'awaiting a deposit is expiry’s business');
  });
});
