/** pendingOutflows (src/store/settlement/pending-outflows.ts): what pending transactions will take out of each pool. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { pendingOutflows } from '../../src/store/settlement/pending-outflows.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx } from '../support/settlement-fixtures.ts';

forEachEngine('pendingOutflows', (ctx) => {
  it('sums pending payouts, refunds and partner payouts per source; sweeps and settled ones do not count', async () => {
    const db = (await ctx.fresh()).db;
    await insertChainTx(db, newTx({ source: 'pool-a', amount: 10n }));
    await insertChainTx(db, newTx({ source: 'pool-a', kind: 'refund', amount: 5n }));
    await insertChainTx(db, newTx({ source: 'pool-b', kind: 'partner_payout', amount: 7n }));
    await insertChainTx(db, newTx({ source: 'deposits', kind: 'sweep', amount: 100n }));
    const landed = (await insertChainTx(db, newTx({ source: 'pool-b', amount: 50n })))!;
    await settleChainTx(db, landed, 'confirmed', 5000n);
    assert.deepEqual(await pendingOutflows(db), new Map([['pool-a', 15n], ['pool-b', 7n]]));
  });
});
