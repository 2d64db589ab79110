/** openOrderBlockhashes (src/store/settlement/open-order-blockhashes.ts): what a payout must not carry. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openOrderBlockhashes } from '../../src/store/settlement/open-order-blockhashes.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('openOrderBlockhashes', (ctx) => {
  it('lists the deposit blockhash of every open order, once, and none of a final one', async () => {
    await orderIn(ctx.db, 'awaiting_deposit', { txBlockhash: 'bhA' });
    await orderIn(ctx.db, 'deposit_confirmed', { txBlockhash: 'bhA' });
    await orderIn(ctx.db, 'sending', { txBlockhash: 'bhB' });
    await orderIn(ctx.db, 'completed', { txBlockhash: 'bhC' });
    await orderIn(ctx.db, 'expired', { txBlockhash: 'bhD' });
    assert.deepEqual([...(await openOrderBlockhashes(ctx.db))].sort(), ['bhA', 'bhB']);
  });
});
