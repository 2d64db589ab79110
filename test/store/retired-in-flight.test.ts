/** docs/operations.md "Rotate the treasury seed": what of the retired wallets a pending transaction still needs. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Address } from '@solana/kit';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { retiredInFlight } from '../../src/store/settlement/retired-in-flight.ts';
import { forEachEngine } from '../support/databases.ts';

forEachEngine('retired wallets in flight', (ctx) => {
  it('a holding is busy while a pending transaction pays out of it (its source, or one of several); what settled frees it; anything pending from before the rotation is told', async () => {
    const { db } = await ctx.fresh();
    let n = 0;
    const tx = (source: string, meta: object = {}) =>
      insertChainTx(db, { kind: 'payout', orderId: null, assetId: 'usdc', amount: 5n, source, destination: 'R' as Address, signature: `sig${++n}`, wire: 'w', lastValidBlockHeight: 100n, meta: meta as never });
    const before = new Date(Date.now() - 60_000);
    assert.deepEqual(await retiredInFlight(db, ['A', 'B', 'C'], before), { busy: new Set(), signedBefore: false });
    await tx('A');
    const second = await tx('X', { sources: [{ holding: 'X', amount: '2' }, { holding: 'B', amount: '3' }] });
    const r = await retiredInFlight(db, ['A', 'B', 'C'], before);
    assert.deepEqual([...r.busy].sort(), ['A', 'B'], 'its own source, and a pool among several sources');
    assert.equal(r.signedBefore, false, 'written after the rotation');
    assert.equal((await retiredInFlight(db, ['A'], new Date(Date.now() + 60_000))).signedBefore, true, 'pending and older than the rotation');
    await db.query(`UPDATE chain_txs SET status = 'confirmed' WHERE id = $1`, [second]);
    assert.deepEqual([...(await retiredInFlight(db, ['A', 'B', 'C'], before)).busy], ['A'], 'a landed one needs nothing');
  });
});
