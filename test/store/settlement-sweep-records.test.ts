/** relockUnsweptDeposits, attachSweep, finishSweep and sweepOfAccount (src/store/settlement): a sweep's hold on its deposits. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { assetsWithUnsweptDeposits } from '../../src/store/settlement/assets-with-unswept-deposits.ts';
import { attachSweep } from '../../src/store/settlement/attach-sweep.ts';
import { lockUnsweptDeposits } from '../../src/store/settlement/lock-unswept-deposits.ts';
import { undetectDeposit } from '../../src/store/settlement/undetect-deposit.ts';
import { finishSweep } from '../../src/store/settlement/finish-sweep.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { relockUnsweptDeposits } from '../../src/store/settlement/relock-unswept-deposits.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { storeNow } from '../../src/store/settlement/store-now.ts';
import { sweepOfAccount } from '../../src/store/settlement/sweep-of-account.ts';
import { forEachEngine } from '../support/databases.ts';
import { moveOrder } from '../support/move-order.ts';
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

  it('a deposit seen and then undetected is no deposit: the expired order is never taken for a sweep (it held up every sweep of its asset)', async () => {
    const assetId = `u${Math.random().toString(36).slice(2, 8)}`;
    const { id } = await orderIn(ctx.db, 'deposit_detected', { sourceAssetId: assetId, destinationAssetId: assetId });
    assert.ok(await undetectDeposit(ctx.db, id));
    assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'expired'));
    const deposit = async () => (await ctx.db.query<{ sql_null: boolean }>('SELECT deposit IS NULL AS sql_null FROM orders WHERE id = $1', [id])).rows[0]!.sql_null;
    assert.equal(await deposit(), true, 'cleared to SQL NULL, not a JSON null');
    const past = 1n << 62n;
    assert.deepEqual(await assetsWithUnsweptDeposits(ctx.db, past), (await assetsWithUnsweptDeposits(ctx.db, past)).filter((a) => a !== assetId));
    assert.deepEqual(await ctx.db.transaction((tx) => lockUnsweptDeposits(tx, past, assetId, 4)), []);

    // A row written as a JSON null before the fix is put right by its migration.
    await ctx.db.query(`UPDATE orders SET deposit = 'null'::jsonb WHERE id = $1`, [id]);
    assert.equal(await deposit(), false);
    await ctx.db.query(await readFile(new URL('../../src/store/migrations/028-deposit-json-null.sql', import.meta.url), 'utf8'));
    assert.equal(await deposit(), true);
  });
});
