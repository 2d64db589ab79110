/** relockUnsweptDeposits, attachSweep, finishSweep and sweepOfAccount (src/store/settlement): a sweep's hold on its deposits. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { attachSweep } from '../../src/store/settlement/attach-sweep.ts';
import { finishSweep } from '../../src/store/settlement/finish-sweep.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { relockUnsweptDeposits } from '../../src/store/settlement/relock-unswept-deposits.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { storeNow } from '../../src/store/settlement/store-now.ts';
import { sweepOfAccount } from '../../src/store/settlement/sweep-of-account.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('sweep records', (ctx) => {
  const sweptOf = async (id: string) => (await ctx.db.query<{ swept: boolean; sweep_tx_id: string | number | null }>('SELECT swept, sweep_tx_id FROM orders WHERE id = $1', [id])).rows[0]!;

  it('a recorded sweep takes its deposits out of the unswept set; landed marks them swept, dead gives them back', async () => {
    const a = await orderIn(ctx.db, 'completed');
    const b = await orderIn(ctx.db, 'completed');
    const items = [a, b].map(({ id, order }) => ({ orderId: id, depositAccount: order.depositAccount, amount: '1' }));
    const sweep = (await insertChainTx(ctx.db, newTx({ kind: 'sweep', source: 'deposits', meta: { items } })))!;
    assert.deepEqual(await ctx.db.transaction((tx) => relockUnsweptDeposits(tx, [a.id, b.id])), new Set([a.id, b.id]));
    await ctx.db.transaction((tx) => attachSweep(tx, [a.id, b.id], sweep));
    assert.deepEqual(await ctx.db.transaction((tx) => relockUnsweptDeposits(tx, [a.id, b.id])), new Set(), 'in a sweep now');
    assert.equal(await sweepOfAccount(ctx.db, a.order.depositAccount), true, 'pending');
    const readAt = await storeNow(ctx.db);
    await settleChainTx(ctx.db, sweep, 'expired', null);
    await ctx.db.transaction((tx) => finishSweep(tx, sweep, false));
    assert.deepEqual(await sweptOf(a.id), { swept: false, sweep_tx_id: null });
    assert.equal(await sweepOfAccount(ctx.db, a.order.depositAccount), false, 'nothing pending');
    assert.equal(await sweepOfAccount(ctx.db, a.order.depositAccount, readAt), true, 'settled since the read');
    const again = (await insertChainTx(ctx.db, newTx({ kind: 'sweep', source: 'deposits', meta: { items } })))!;
    await ctx.db.transaction((tx) => attachSweep(tx, [a.id, b.id], again));
    await ctx.db.transaction((tx) => finishSweep(tx, again, true));
    assert.equal((await sweptOf(b.id)).swept, true);
  });
});
