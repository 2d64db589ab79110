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
});
