/** markLateRefunded, lateRefundsExist and unrefundedLateSweeps (src/store/settlement): late refunds recorded whole, once. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { lateRefundsExist } from '../../src/store/settlement/late-refunds-exist.ts';
import { markLateRefunded } from '../../src/store/settlement/mark-late-refunded.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { unrefundedLateSweeps } from '../../src/store/settlement/unrefunded-late-sweeps.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('late refund marks', (ctx) => {
  it('a landed sweep with late items is unrefunded until marked, and marked once', async () => {
    const db = (await ctx.fresh()).db;
    const { id: orderId, order } = await orderIn(db, 'completed');
    const late = (await insertChainTx(db, newTx({ kind: 'sweep', source: 'deposits', meta: { items: [{ orderId, depositAccount: order.depositAccount, amount: '5', late: true }] } })))!;
    const plain = (await insertChainTx(db, newTx({ kind: 'sweep', source: 'deposits', meta: { items: [{ orderId, depositAccount: order.depositAccount, amount: '5' }] } })))!;
    assert.deepEqual(await unrefundedLateSweeps(db), [], 'not landed yet');
    await settleChainTx(db, late, 'confirmed', 5000n);
    await settleChainTx(db, plain, 'confirmed', 5000n);
    assert.deepEqual(await unrefundedLateSweeps(db), [late]);
    assert.equal(await db.transaction((tx) => markLateRefunded(tx, late)), true);
    assert.equal(await db.transaction((tx) => markLateRefunded(tx, late)), false, 'once');
    assert.deepEqual(await unrefundedLateSweeps(db), []);
  });

  it('lateRefundsExist finds the refund parts of one sweep only', async () => {
    const { id: orderId } = await orderIn(ctx.db, 'completed');
    const sig = `s${Math.random().toString(36).slice(2)}`;
    assert.equal(await lateRefundsExist(ctx.db, sig), false);
    await insertChainTx(ctx.db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: `${sig}x` } }));
    assert.equal(await lateRefundsExist(ctx.db, sig), false, 'another sweep');
    await insertChainTx(ctx.db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: sig } }));
    assert.equal(await lateRefundsExist(ctx.db, sig), true);
  });
});
