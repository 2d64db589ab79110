/** deadLateRefunds and abandonedLateRefunds (src/store/settlement): late refund parts to replace, and those given up. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { abandonedLateRefunds } from '../../src/store/settlement/abandoned-late-refunds.ts';
import { deadLateRefunds } from '../../src/store/settlement/dead-late-refunds.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('dead and abandoned late refunds', (ctx) => {
  it('the latest attempt of each part decides: dead within 7 days is replaced, dead past them is given up', async () => {
    const db = (await ctx.fresh()).db;
    const { id: orderId, order } = await orderIn(db, 'completed');
    const attempt = async (lateOf: string, status: 'failed' | 'expired' | 'pending', hoursAgo = 0) => {
      const id = (await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf } })))!;
      if (status !== 'pending') await settleChainTx(db, id, status, null);
      if (hoursAgo > 0) await db.query(`UPDATE chain_txs SET created_at = now() - make_interval(hours => $2) WHERE id = $1`, [id, hoursAgo]);
      return id;
    };
    await attempt('a', 'failed');
    const deadA = await attempt('a', 'expired');
    await attempt('b', 'failed');
    await attempt('b', 'pending'); // replaced already
    const old = await attempt('c', 'failed', 180); // 7.5 days
    await attempt('d', 'failed', 216); // 9 days: given up before the last day: told already
    assert.deepEqual(await deadLateRefunds(db), [deadA]);
    assert.deepEqual(await abandonedLateRefunds(db), [{ id: old, lateOf: 'c', part: 0, trackingId: order.trackingId, amount: '10', assetId: 'usdc' }]);
  });
});
