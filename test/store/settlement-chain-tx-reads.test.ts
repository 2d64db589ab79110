/** getChainTx, pendingChainTxs, chainTxsOfOrder(s) and ordersByIds (src/store/settlement): the worker's reads. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { chainTxsOfOrder, chainTxsOfOrders } from '../../src/store/settlement/chain-txs-of-orders.ts';
import { getChainTx } from '../../src/store/settlement/get-chain-tx.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { ordersByIds } from '../../src/store/settlement/orders-by-ids.ts';
import { pendingChainTxs } from '../../src/store/settlement/pending-chain-txs.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('reads of recorded transactions', (ctx) => {
  it('reads back what was recorded, by id, by order and kind, and the pending ones oldest first', async () => {
    const db = (await ctx.fresh()).db;
    const a = await orderIn(db, 'sending');
    const b = await orderIn(db, 'refunding');
    const tx = newTx({ orderId: a.id, amount: 42n, meta: { part: 1 } });
    const id = (await insertChainTx(db, tx))!;
    const refund = (await insertChainTx(db, newTx({ kind: 'refund', orderId: b.id })))!;
    const settled = (await insertChainTx(db, newTx({ orderId: a.id })))!;
    assert.ok(await settleChainTx(db, settled, 'confirmed', 5000n));
    const got = (await getChainTx(db, id))!;
    assert.deepEqual({ ...got, createdAt: null }, { ...tx, id, orderId: a.id, status: 'pending', meta: { part: 1 }, createdAt: null });
    assert.equal(await getChainTx(db, '999999999'), null);
    assert.deepEqual((await pendingChainTxs(db, 10)).map((t) => t.id), [id, refund]);
    assert.deepEqual((await pendingChainTxs(db, 1)).map((t) => t.id), [id]);
    assert.deepEqual((await chainTxsOfOrder(db, a.id, 'payout')).map((t) => t.id), [id, settled]);
    assert.deepEqual((await chainTxsOfOrders(db, [a.id, b.id], 'refund')).map((t) => t.id), [refund]);
    assert.deepEqual(await chainTxsOfOrders(db, [], 'payout'), []);
    assert.deepEqual((await ordersByIds(db, [b.id, a.id])).map((o) => o.id).sort(), [a.id, b.id].sort());
    assert.deepEqual(await ordersByIds(db, []), []);
  });
});
