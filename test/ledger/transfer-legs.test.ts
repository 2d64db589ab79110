/** assetMovements (src/ledger/order-movements.ts) of a transfer out of the pools: one leg per paying pool. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assetMovements } from '../../src/ledger/order-movements.ts';
import type { ChainTx } from '../../src/store/settlement/chain-tx.ts';

const payout = (amount: bigint, meta: ChainTx['meta']): ChainTx =>
  ({ id: '1', kind: 'payout', orderId: '7', assetId: 'usdc', amount, source: 'P1', destination: 'R', signature: 'S', wire: '', lastValidBlockHeight: 1n, status: 'confirmed', meta, createdAt: new Date(0) }) as ChainTx;

const legsOf = (t: ChainTx) => assetMovements(t, false, 0n).movements.flatMap((m) => m.legs);
const sum = (legs: { amount: bigint }[]) => legs.reduce((s, l) => s + l.amount, 0n);

test('a payout from one pool: that pool pays the amount to the recipients', () => {
  const legs = legsOf(payout(100n, { part: 0 }));
  assert.deepEqual(legs, [
    { account: 'pool:P1', assetId: 'usdc', amount: -100n },
    { account: 'external:recipients', assetId: 'usdc', amount: 100n },
  ]);
});

test('a payout from several pools in one transaction: each pool its own share, the recipients the total, balanced', () => {
  const legs = legsOf(payout(100n, { part: 0, sources: [{ holding: 'P1', amount: '60' }, { holding: 'P2', amount: '40' }] }));
  assert.deepEqual(legs, [
    { account: 'pool:P1', assetId: 'usdc', amount: -60n },
    { account: 'pool:P2', assetId: 'usdc', amount: -40n },
    { account: 'external:recipients', assetId: 'usdc', amount: 100n },
  ]);
  assert.equal(sum(legs), 0n);
});
