/** The attempts of one part of a payout or refund, which pace its replacements (replacement-backoff). */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { insertOrder } from '../../src/store/orders-store.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { partAttempts } from '../../src/store/settlement/part-attempts.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import type { Address } from '@solana/kit';

forEachEngine('attempts of a part', (ctx) => {
  it('counts the failed attempts of that part only, and when the last was recorded', async () => {
    const order = newOrder(await createTestAccount(ctx.db));
    const orderId = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    const attempt = async (kind: 'payout' | 'refund', part: number | undefined, status: 'failed' | 'expired' | 'pending', lateOf?: string) => {
      const id = await insertChainTx(ctx.db, {
        kind, orderId, assetId: 'usdc', amount: 10n, source: 'pool', destination: 'someone' as Address,
        signature: randomBytes(32).toString('hex'), wire: 'AA==', lastValidBlockHeight: 1n, meta: part === undefined ? {} : { part, ...(lateOf ? { lateOf } : {}) },
      });
      assert.ok(id);
      if (status !== 'pending') assert.ok(await settleChainTx(ctx.db, id, status, null));
    };
    assert.deepEqual(await partAttempts(ctx.db, orderId, 'payout', 0), { failed: 0, lastAt: null });
    await attempt('payout', undefined, 'failed'); // part 0 written without a part
    await attempt('payout', 0, 'failed');
    await attempt('payout', 0, 'expired'); // died unsent: no fee, no count
    await attempt('payout', 1, 'failed');
    await attempt('refund', 0, 'failed');
    await attempt('refund', 0, 'failed', 'sig');
    await attempt('refund', 0, 'pending', 'sig');
    const p0 = await partAttempts(ctx.db, orderId, 'payout', 0);
    assert.equal(p0.failed, 2);
    assert.ok(p0.lastAt instanceof Date && Date.now() - p0.lastAt.getTime() < 60_000);
    assert.equal((await partAttempts(ctx.db, orderId, 'payout', 1)).failed, 1);
    assert.equal((await partAttempts(ctx.db, orderId, 'refund', 0)).failed, 1);
    assert.equal((await partAttempts(ctx.db, orderId, 'refund', 0, 'sig')).failed, 1);
  });
});
