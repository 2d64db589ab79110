import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocate, shufflePools } from '../../src/domain/settlement/allocation.ts';
import { txFate } from '../../src/domain/settlement/tx-fate.ts';
import { depositDecision, type DepositBalance } from '../../src/domain/settlement/deposit-decision.ts';
import { refundPlan } from '../../src/domain/settlement/refund-plan.ts';
import { payoutDue } from '../../src/domain/settlement/payout-delay.ts';
import { DEPOSIT_ACCOUNT_RENT, WALLET_RENT } from '../../src/domain/network-cost.ts';

const offers = fc.array(fc.bigInt({ min: -1_000_000n, max: 10_000_000n }), { minLength: 1, maxLength: 8 }).map((a) => a.map((available, i) => ({ pool: `p${i}`, available })));

test('allocation never overspends a pool, its parts sum to the amount, and it fails only when the pools together fall short', () => {
  fc.assert(
    fc.property(offers, fc.bigInt({ min: 1n, max: 30_000_000n }), (pools, amount) => {
      const chosen = allocate(amount, pools);
      const total = pools.reduce((s, p) => s + (p.available > 0n ? p.available : 0n), 0n);
      if (chosen === null) {
        assert.ok(total < amount, 'null only when the pools cannot cover it together');
        return;
      }
      assert.equal(chosen.reduce((s, c) => s + c.amount, 0n), amount);
      const byPool = new Map(pools.map((p) => [p.pool, p.available]));
      const seen = new Set<string>();
      for (const c of chosen) {
        assert.ok(c.amount > 0n);
        assert.ok(c.amount <= byPool.get(c.pool)!, 'never more than the pool can pay');
        assert.ok(!seen.has(c.pool), 'each pool once');
        seen.add(c.pool);
      }
      if (pools.some((p) => p.available >= amount)) assert.equal(chosen.length, 1, 'one pool when one can cover it');
    }),
  );
});

test('a split takes the largest pools first', () => {
  assert.deepEqual(
    allocate(10n, [
      { pool: 'a', available: 3n },
      { pool: 'b', available: 6n },
      { pool: 'c', available: 5n },
    ]),
    [
      { pool: 'b', amount: 6n },
      { pool: 'c', amount: 4n },
    ],
  );
});

test('shuffling keeps every pool', () => {
  fc.assert(
    fc.property(fc.array(fc.string(), { maxLength: 10 }), fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })), (pools, rnd) => {
      const it = rnd[Symbol.iterator]();
      assert.deepEqual(shufflePools(pools, () => it.next().value as number).sort(), [...pools].sort());
    }),
  );
});

const statusArb = fc.option(fc.record({ confirmationStatus: fc.constantFrom('processed', 'confirmed', 'finalized', null), err: fc.constantFrom(null, { InstructionError: [0, 'Custom'] }) }), { nil: null });

test('a fate is never `expired` while the blockhash can still land, nor while the chain knows the signature', () => {
  fc.assert(
    fc.property(statusArb, fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 1000n }), fc.nat({ max: 10_000 }), (status, finalizedHeight, lastValidBlockHeight, msSinceSent) => {
      const fate = txFate({ status, finalizedHeight, lastValidBlockHeight, msSinceSent, resendEveryMs: 2000 });
      if (finalizedHeight <= lastValidBlockHeight || status) assert.notEqual(fate, 'expired');
      if (!status && finalizedHeight > lastValidBlockHeight) assert.equal(fate, 'expired');
      if (status && status.confirmationStatus !== 'processed') assert.equal(fate, status.err === null ? 'landed' : 'failed');
      if (fate === 'resend') assert.ok(!status && msSinceSent > 2000);
    }),
  );
});

const balanceArb: fc.Arbitrary<DepositBalance | undefined> = fc.option(fc.record({ exists: fc.boolean(), tokenAmount: fc.option(fc.bigInt({ min: 0n, max: 10n }), { nil: null }) }), { nil: undefined });
const funded = (b: DepositBalance | undefined) => !!b?.exists && (b.tokenAmount ?? 0n) > 0n;

test('the deposit decision answers every status × balance combination', () => {
  fc.assert(
    fc.property(fc.constantFrom('awaiting_deposit' as const, 'deposit_detected' as const), balanceArb, balanceArb, fc.boolean(), (status, confirmed, processed, dead) => {
      const d = depositDecision(status, confirmed, processed, dead);
      if (funded(confirmed)) assert.deepEqual(d, { kind: 'confirm', amount: confirmed!.tokenAmount });
      else if (funded(processed)) assert.deepEqual(d, status === 'awaiting_deposit' ? { kind: 'detect', amount: processed!.tokenAmount } : { kind: 'seen' });
      else if (status === 'deposit_detected') assert.deepEqual(d, { kind: 'undetect' });
      else assert.deepEqual(d, { kind: dead ? 'expire' : 'poll' });
      // Never expired with a deposit in sight, and only once every blockhash is dead.
      if (d.kind === 'expire') assert.ok(dead && !funded(confirmed) && !funded(processed) && status === 'awaiting_deposit');
    }),
  );
});

test('a refund returns the deposit less the network fee, or holds what cannot land', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 5_000_000n }), fc.bigInt({ min: 0n, max: 1_000_000n }), fc.boolean(), fc.constantFrom(0n, 1n, 5_000_000n), (deposited, fee, native, lamports) => {
      const p = refundPlan(deposited, fee, native, lamports);
      const amount = deposited - fee;
      if (amount <= 0n) assert.deepEqual(p, { kind: 'below_cost' });
      else if (native && amount < WALLET_RENT && lamports === 0n) assert.deepEqual(p, { kind: 'below_rent', amount });
      else assert.deepEqual(p, { kind: 'refund', amount });
    }),
  );
});

test("an order's refund carries the deposit account's rent: SOL below a wallet's rent lands beside it", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 5_000_000n }), fc.bigInt({ min: 0n, max: 1_000_000n }), fc.boolean(), fc.constantFrom(0n, 1n), (deposited, fee, native, lamports) => {
      const p = refundPlan(deposited, fee, native, lamports, DEPOSIT_ACCOUNT_RENT);
      const amount = deposited - fee;
      assert.deepEqual(p, amount <= 0n ? { kind: 'below_cost' } : { kind: 'refund', amount });
    }),
  );
});

test('the payout is due within the privacy delay window, to the millisecond', () => {
  fc.assert(
    fc.property(fc.nat({ max: 100 }), fc.nat({ max: 100 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (a, b, r) => {
      const [min, max] = a <= b ? [a, b] : [b, a];
      const from = new Date(1_700_000_000_000);
      const due = payoutDue(from, { min, max }, (n) => Math.floor(r * n)).getTime() - from.getTime();
      assert.ok(due >= min * 1000 && due <= max * 1000);
    }),
  );
  assert.equal(payoutDue(new Date(0), { min: 0, max: 0 }, () => 0).getTime(), 0);
});
