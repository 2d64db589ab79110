/**
 * A landed sweep's ledger legs: they balance, SPL sweeps move exactly the recorded amounts, and a
 * wrapped-SOL sweep that moved more than its recorded amounts plus rent books the rest as owed to a
 * sender (external:senders, reported as unattributed), not as rent income.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sweepLegs, withLateArrivals } from '../../src/ledger/sweep-legs.ts';

const RENT = 2_039_280n;
const sum = (legs: { amount: bigint }[]) => legs.reduce((s, l) => s + l.amount, 0n);
const items = [
  { orderId: '1', depositAccount: 'A', amount: '500000000' },
  { orderId: '1', depositAccount: 'A', amount: '200000000', late: true },
  { orderId: '2', depositAccount: 'B', amount: '100000000' },
];

test('SPL: the pool gains exactly the recorded amounts; a late item comes from external:senders', () => {
  const { legs, unattributed } = sweepLegs(items, { assetId: 'usdc', pool: 'P', native: false, poolLamportDelta: 0n, rentPerAccount: RENT });
  assert.equal(sum(legs), 0n);
  assert.equal(unattributed, 0n);
  assert.deepEqual(legs.find((l) => l.account === 'pool:P')?.amount, 800_000_000n);
  assert.deepEqual(legs.find((l) => l.account === 'external:senders')?.amount, -200_000_000n);
});

test('wrapped SOL, as read: the pool gains amounts plus one rent per closed account, booked as rent income', () => {
  const delta = 800_000_000n + 2n * RENT;
  const { legs, unattributed } = sweepLegs(items, { assetId: 'sol', pool: 'P', native: true, poolLamportDelta: delta, rentPerAccount: RENT });
  assert.equal(sum(legs), 0n);
  assert.equal(unattributed, 0n);
  assert.equal(legs.find((l) => l.account === 'income:rent')?.amount, -2n * RENT);
});

test('wrapped SOL that received lamports after the read: the surplus is owed to a sender, not rent', () => {
  const late = 30_000_000n;
  const delta = 800_000_000n + 2n * RENT + late;
  const { legs, unattributed } = sweepLegs(items, { assetId: 'sol', pool: 'P', native: true, poolLamportDelta: delta, rentPerAccount: RENT });
  assert.equal(sum(legs), 0n);
  assert.equal(unattributed, late);
  assert.equal(legs.find((l) => l.account === 'income:rent')?.amount, -2n * RENT, 'rent income is only the rent');
  assert.equal(
    legs.filter((l) => l.account === 'external:senders').reduce((s, l) => s + l.amount, 0n),
    -200_000_000n - late,
    'the late item and the surplus both came from senders',
  );
});

test('withLateArrivals: what an account held before the sweep beyond its items and rent joins its late item, or becomes one', () => {
  // A had 700 000 000 recorded (one late item among them) and held 30 000 000 more; B held exactly its item.
  const before = new Map([['A', 700_000_000n + RENT + 30_000_000n], ['B', 100_000_000n + RENT]]);
  const merged = withLateArrivals(items, before, RENT)!;
  assert.deepEqual(merged, [items[0], { ...items[1], amount: '230000000' }, items[2]], 'one late item per account: one refund, one network fee');
  const onTime = withLateArrivals([items[0]!, items[2]!], new Map([['A', 500_000_000n + RENT + 30_000_000n]]), RENT)!;
  assert.deepEqual(onTime, [items[0], items[2], { orderId: '1', depositAccount: 'A', amount: '30000000', late: true }]);
  // With the arrivals as items, the sweep's legs attribute every lamport: nothing unattributed.
  const delta = 800_000_000n + 2n * RENT + 30_000_000n;
  const { legs, unattributed } = sweepLegs(merged, { assetId: 'sol', pool: 'P', native: true, poolLamportDelta: delta, rentPerAccount: RENT });
  assert.equal(sum(legs), 0n);
  assert.equal(unattributed, 0n);
  assert.equal(withLateArrivals(items, new Map([['A', 700_000_000n + RENT], ['B', 100_000_000n + RENT]]), RENT), null, 'nothing arrived');
  assert.equal(withLateArrivals(items, new Map(), RENT), null, 'balances unknown: left to the unattributed alert');
});

test('a reserve the sweep read counts instead of the standard one, in the legs and for what arrived later', () => {
  const bigger = RENT + 1_000_000n; // an account whose reserve is not the standard rent
  const mine = [{ orderId: '3', depositAccount: 'C', amount: '400000000', reserve: bigger.toString() }];
  assert.equal(withLateArrivals(mine, new Map([['C', 400_000_000n + bigger]]), RENT), null, 'its own reserve is no late arrival');
  assert.deepEqual(withLateArrivals(mine, new Map([['C', 400_000_000n + bigger + 5n]]), RENT)?.[1], { orderId: '3', depositAccount: 'C', amount: '5', late: true });
  const { legs, unattributed } = sweepLegs(mine, { assetId: 'sol', pool: 'P', native: true, poolLamportDelta: 400_000_000n + bigger, rentPerAccount: RENT });
  assert.equal(unattributed, 0n);
  assert.equal(legs.find((l) => l.account === 'income:rent')?.amount, -bigger);
});
