/** settleChainTx and settleChainTxs (src/store/settlement/settle-chain-txs.ts): compare-and-set on a transaction's fate. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { getChainTx } from '../../src/store/settlement/get-chain-tx.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { settleChainTx, settleChainTxs } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx } from '../support/settlement-fixtures.ts';

forEachEngine('settling recorded transactions', (ctx) => {
  it('settles each pending transaction once, with its fee and (landed) its confirmation time', async () => {
    const a = (await insertChainTx(ctx.db, newTx()))!;
    const b = (await insertChainTx(ctx.db, newTx()))!;
    const c = (await insertChainTx(ctx.db, newTx()))!;
    assert.ok(await settleChainTx(ctx.db, c, 'expired', null));
    const at = new Date().toISOString();
    const done = await settleChainTxs(ctx.db, [
      { id: a, to: 'confirmed', feeLamports: 5000n, confirmedAt: at },
      { id: b, to: 'failed', feeLamports: 5000n },
      { id: c, to: 'confirmed', feeLamports: 5000n, confirmedAt: at },
    ]);
    assert.deepEqual([...done].sort(), [a, b].sort(), 'the expired one is settled already');
    assert.equal((await getChainTx(ctx.db, a))!.meta.confirmedAt, at);
    assert.equal((await getChainTx(ctx.db, b))!.status, 'failed');
    assert.equal((await getChainTx(ctx.db, c))!.status, 'expired');
    assert.equal(await settleChainTx(ctx.db, a, 'failed', null), false, 'never twice');
    assert.deepEqual(await settleChainTxs(ctx.db, []), new Set());
  });
});
