/**
 * The ledger's split of a transaction's fee (src/ledger/network-cost.ts): at the rung its orders were quoted at,
 * the mean for a sweep of several, the rung in effect for an order that recorded none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { absorbedPriorityFee, networkCostMovement, quotedPriceOf } from '../../src/ledger/network-cost.ts';

test("a transaction is split at its orders' quoted rung; an order without one at the rung in effect", () => {
  const quoted = new Map([['1', 1_000n], ['2', 1_000n], ['3', 4_000n]]);
  assert.equal(quotedPriceOf(['1'], quoted, 8_000n), 1_000n, "a payout: its order's rung, not the one in effect");
  assert.equal(quotedPriceOf(['1', '2', '3'], quoted, 8_000n), 2_000n, 'a sweep: the mean of its orders');
  assert.equal(quotedPriceOf(['9'], quoted, 8_000n), 8_000n, 'no record: the rung in effect');
  assert.equal(quotedPriceOf([], quoted, 8_000n), 8_000n);
});

test('what the quoted rung priced goes to expense:network, the rest to expense:network_absorbed; the movement balances', () => {
  const absorbed = absorbedPriorityFee(40_000n, 1_000n, 200_000);
  assert.equal(absorbed, 8_000n - 200n);
  const m = networkCostMovement('sig', 'payer', { fee: 10_000n + 8_000n, feePayerDelta: -18_000n }, absorbed);
  const leg = (a: string) => m.legs.find((l) => l.account === a)?.amount;
  assert.equal(leg('expense:network'), 10_200n);
  assert.equal(leg('expense:network_absorbed'), 7_800n);
  assert.equal(m.legs.reduce((s, l) => s + l.amount, 0n), 0n);
});
