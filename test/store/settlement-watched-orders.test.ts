/** watchedOrders, makeOrderDue and setSweepItems (src/store/settlement): small reads and writes of the worker. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { getChainTx } from '../../src/store/settlement/get-chain-tx.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { makeOrderDue } from '../../src/store/settlement/make-order-due.ts';
import { releaseOrders } from '../../src/store/settlement/release-orders.ts';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { setSweepItems } from '../../src/store/settlement/set-sweep-items.ts';
import { watchedOrders } from '../../src/store/settlement/watched-orders.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn, orderRow } from '../support/settlement-fixtures.ts';

forEachEngine('worker reads and small writes', (ctx) => {
  it('watchedOrders lists the orders awaiting a deposit (detected too), with what presigning needs', async () => {
    const db = (await ctx.fresh()).db;
    const a = await orderIn(db);
    const b = await orderIn(db, 'deposit_detected');
    await orderIn(db, 'deposit_confirmed');
    const rows = await watchedOrders(db);
    assert.deepEqual(rows.map((r) => String(r.id)).sort(), [a.id, b.id].sort());
    const ra = rows.find((r) => String(r.id) === a.id)!;
    assert.equal(ra.deposit_account, a.order.depositAccount);
    assert.equal(BigInt(ra.amount_out), a.order.amountOut);
  });

  it('makeOrderDue brings an order forward; setSweepItems replaces a sweep’s items', async () => {
    const { id } = await orderIn(ctx.db, 'sending');
    await claimOrder(ctx.db, id, 'w1', 30);
    await releaseOrders(ctx.db, 'w1', [{ id, at: new Date(Date.now() + 3_600_000) }]);
    await makeOrderDue(ctx.db, id);
    assert.ok((await orderRow(ctx.db, id)).next_run_at.getTime() <= Date.now() + 1_000);
    const sweep = (await insertChainTx(ctx.db, newTx({ kind: 'sweep', meta: { items: [{ orderId: id, depositAccount: 'acct', amount: '1' }], lateRefunded: false } })))!;
    await setSweepItems(ctx.db, sweep, [{ orderId: id, depositAccount: 'acct', amount: '1' }, { orderId: id, depositAccount: 'acct', amount: '2', late: true }]);
    assert.deepEqual((await getChainTx(ctx.db, sweep))!.meta, { items: [{ orderId: id, depositAccount: 'acct', amount: '1' }, { orderId: id, depositAccount: 'acct', amount: '2', late: true }], lateRefunded: false });
  });
});
