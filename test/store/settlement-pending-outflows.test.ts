/** pendingOutflows (src/store/settlement/pending-outflows.ts): what pending transactions will take out of each pool. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { pendingOutflows } from '../../src/store/settlement/pending-outflows.ts';
import { poolCommitments } from '../../src/store/settlement/pool-commitments.ts';
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

  it('a transaction paying from several pools takes each pool\'s own share (meta.sources), in both reads', async () => {
    const db = (await ctx.fresh()).db;
    await insertChainTx(db, newTx({ source: 'pool-c', amount: 4n }));
    const sources = [{ holding: 'pool-c', amount: '30' }, { holding: 'pool-d', amount: '70' }];
    await insertChainTx(db, newTx({ source: 'pool-c', amount: 100n, meta: { part: 0, sources } }));
    const landed = (await insertChainTx(db, newTx({ source: 'pool-d', amount: 9n, meta: { part: 0, sources: [{ holding: 'pool-d', amount: '5' }, { holding: 'pool-e', amount: '4' }] } })))!;
    await settleChainTx(db, landed, 'confirmed', 5000n);
    const expected = new Map([['pool-c', 34n], ['pool-d', 70n]]);
    assert.deepEqual(await pendingOutflows(db), expected);
    const { pending } = await poolCommitments(db);
    assert.deepEqual(new Map([...pending].filter(([k]) => k.startsWith('pool-'))), expected);
  });
});
