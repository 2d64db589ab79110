import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isHushError } from '../../src/domain/errors.ts';
import { type FeeInput, type FeeQuote, type QuoteMode, feesOn, quoteCrossAsset, quoteSameAsset } from '../../src/domain/fees.ts';
import { type Amount, U64_MAX, ZERO, toAmount } from '../../src/domain/money.ts';

const A = (v: bigint | number): Amount => toAmount(BigInt(v));
const B = 10_000n;

/** Independent oracle: what a same-asset amountIn delivers (may be < 1). */
const deliver = (x: bigint, p: number, s: number, n: bigint): bigint => x - (x * BigInt(p)) / B - (x * BigInt(s)) / B - n;

// Amounts spread over the whole u64 range and over realistic magnitudes.
const amountArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 10_000n }),
  fc.bigInt({ min: 0n, max: 10n ** 12n }),
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.bigInt({ min: U64_MAX - 10n ** 6n, max: U64_MAX }),
).map(toAmount);
const networkFeeArb = fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 100_000n }), fc.bigInt({ min: 0n, max: U64_MAX })).map(toAmount);
const bpsArb = fc.integer({ min: 0, max: 1000 });
const modeArb = fc.constantFrom<QuoteMode>('exact_in', 'exact_out');

const base = (over: Partial<FeeInput>): FeeInput => ({
  mode: 'exact_in', amount: A(1_000_000), feeBps: 0, serviceFeeBps: 30, networkFee: ZERO, min: A(1), max: U64_MAX, ...over,
});

function attempt(input: FeeInput): FeeQuote | string {
  try {
    return quoteSameAsset(input);
  } catch (e) {
    if (isHushError(e)) return e.code;
    throw e;
  }
}

function checkInvariants(q: FeeQuote, feeBps: number, serviceFeeBps: number, networkFee: bigint): void {
  assert.equal(q.partnerFee, (q.amountIn * BigInt(feeBps)) / B);
  assert.equal(q.serviceFee, (q.amountIn * BigInt(serviceFeeBps)) / B);
  assert.equal(q.protocolFee, q.serviceFee + q.partnerFee);
  assert.equal(q.networkFee, networkFee);
  assert.equal(q.fee, q.protocolFee + q.networkFee);
  assert.ok(q.amountIn <= U64_MAX && q.amountOut >= 1n);
}

describe('fees: same asset (docs/spec.md §4)', () => {
  it('worked example, including the non-monotone step that makes exact_out cheaper', () => {
    const q = quoteSameAsset(base({ amount: A(1_000_000), feeBps: 50, networkFee: A(5000) }));
    assert.deepEqual(
      { in: q.amountIn, out: q.amountOut, s: q.serviceFee, p: q.partnerFee, pf: q.protocolFee, f: q.fee },
      { in: 1_000_000n, out: 987_000n, s: 3000n, p: 5000n, pf: 8000n, f: 13_000n },
    );
    // 999_998 also delivers 987_000 (both floors drop by one just below 10^6), and is the smallest.
    const o = quoteSameAsset(base({ mode: 'exact_out', amount: A(987_000), feeBps: 50, networkFee: A(5000) }));
    assert.equal(o.amountIn, 999_998n);
    assert.equal(o.amountOut, 987_000n);
    assert.equal(deliver(999_999n, 50, 30, 5000n), 987_001n);
  });

  it('every invariant holds, for both modes, over the whole u64 range', () => {
    fc.assert(
      fc.property(modeArb, amountArb, bpsArb, bpsArb, networkFeeArb, (mode, amount, feeBps, serviceFeeBps, networkFee) => {
        const r = attempt({ mode, amount, feeBps, serviceFeeBps, networkFee, min: ZERO, max: U64_MAX });
        if (typeof r === 'string') {
          if (mode === 'exact_in') {
            assert.equal(r, 'AMOUNT_TOO_LOW');
            assert.ok(deliver(amount, feeBps, serviceFeeBps, networkFee) < 1n);
          } else if (r === 'AMOUNT_TOO_HIGH') {
            // No amountIn ≤ u64 delivers `amount`: f starts below it and moves by ≤ 1, so f(u64 max) < amount.
            assert.ok(deliver(U64_MAX, feeBps, serviceFeeBps, networkFee) < amount);
          } else {
            assert.equal(r, 'AMOUNT_TOO_LOW');
            assert.equal(amount, 0n);
          }
          return;
        }
        checkInvariants(r, feeBps, serviceFeeBps, networkFee);
        assert.equal(r.amountIn, r.amountOut + r.fee);
        if (mode === 'exact_in') assert.equal(r.amountIn, amount);
        else {
          assert.equal(r.amountOut, amount);
          // Minimal: one unit less delivers exactly one unit less (so, by the ±1 step argument, less).
          if (r.amountIn > 0n) assert.equal(deliver(r.amountIn - 1n, feeBps, serviceFeeBps, networkFee), amount - 1n);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('exact_out amountIn is minimal by brute force on small amounts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), bpsArb, bpsArb, fc.integer({ min: 0, max: 50 }), (amount, p, s, n) => {
        const q = quoteSameAsset(base({ mode: 'exact_out', amount: A(amount), feeBps: p, serviceFeeBps: s, networkFee: A(n) }));
        for (let x = 0n; x < q.amountIn; x++) assert.notEqual(deliver(x, p, s, BigInt(n)), BigInt(amount), `x=${x}`);
        assert.equal(deliver(q.amountIn, p, s, BigInt(n)), BigInt(amount));
      }),
      { numRuns: 300 },
    );
  });

  it('round trip: exact_out for the amountOut of an exact_in quote never costs more', () => {
    fc.assert(
      fc.property(amountArb, bpsArb, bpsArb, networkFeeArb, (amount, feeBps, serviceFeeBps, networkFee) => {
        const i = attempt({ mode: 'exact_in', amount, feeBps, serviceFeeBps, networkFee, min: ZERO, max: U64_MAX });
        if (typeof i === 'string') return;
        const o = quoteSameAsset({ mode: 'exact_out', amount: i.amountOut, feeBps, serviceFeeBps, networkFee, min: ZERO, max: U64_MAX });
        assert.equal(o.amountOut, i.amountOut);
        assert.ok(o.amountIn <= i.amountIn);
        // Over k ≥ 3 steps down each floor drops by ≤ ceil(k/10), so f falls by ≥ 1: the saving is ≤ 2.
        assert.ok(i.amountIn - o.amountIn <= 2n);
      }),
      { numRuns: 5000 },
    );
  });

  it('bounds: AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH carry min and max', () => {
    const expectError = (input: FeeInput, code: string) =>
      assert.throws(() => quoteSameAsset(input), (e: unknown) => {
        assert.ok(isHushError(e));
        assert.equal(e.code, code);
        assert.deepEqual(e.details, { min: input.min.toString(), max: input.max.toString() });
        return true;
      });
    const lim = { min: A(1000), max: A(10_000_000) };
    for (const mode of ['exact_in', 'exact_out'] as const) {
      expectError(base({ ...lim, mode, amount: A(999) }), 'AMOUNT_TOO_LOW');
      expectError(base({ ...lim, mode, amount: A(10_000_001) }), 'AMOUNT_TOO_HIGH');
      expectError(base({ mode, amount: ZERO, min: ZERO }), 'AMOUNT_TOO_LOW');
      assert.equal(quoteSameAsset(base({ ...lim, mode, amount: A(1000) })).amountIn >= 1000n, true);
    }
    // Nothing left to deliver: details.min is the least amount that leaves 1 base unit (5016 here).
    assert.throws(() => quoteSameAsset(base({ amount: A(5000), networkFee: A(5000) })), (e: unknown) => isHushError(e, 'AMOUNT_TOO_LOW') && (e.details as { min: string }).min === '5016');
    assert.deepEqual([deliver(5015n, 0, 30, 5000n), deliver(5016n, 0, 30, 5000n)], [0n, 1n]);
    expectError(base({ mode: 'exact_out', amount: U64_MAX }), 'AMOUNT_TOO_HIGH'); // amountIn would pass u64
    expectError(base({ mode: 'exact_out', amount: A(1), networkFee: U64_MAX }), 'AMOUNT_TOO_HIGH');
  });

  it('rejects bps outside 0..1000 as a caller bug', () => {
    assert.throws(() => quoteSameAsset(base({ feeBps: 1001 })), RangeError);
    assert.throws(() => quoteSameAsset(base({ serviceFeeBps: -1 })), RangeError);
    assert.throws(() => quoteSameAsset(base({ feeBps: 1.5 })), RangeError);
    assert.deepEqual(feesOn(A(10_000), 100, 30, A(7)), { serviceFee: 30n, partnerFee: 100n, networkFee: 7n, protocolFee: 130n, fee: 137n });
    // feesOn checks its own bps (it is called on a confirmed deposit, not only behind a quote), naming the one at fault.
    const refuses = (feeBps: number, serviceFeeBps: number, name: string, got: number) =>
      assert.throws(() => feesOn(A(10_000), feeBps, serviceFeeBps, A(7)), (e: unknown) => e instanceof RangeError && e.message === `${name} must be an integer in 0..1000, got ${got}`);
    refuses(1001, 30, 'feeBps', 1001);
    refuses(-1, 30, 'feeBps', -1);
    refuses(2.5, 30, 'feeBps', 2.5);
    refuses(100, 1001, 'serviceFeeBps', 1001);
    refuses(100, -1, 'serviceFeeBps', -1);
    assert.equal(feesOn(A(10_000), 1000, 1000, A(0)).protocolFee, 2000n, 'the bounds themselves are accepted');
  });
});

describe('fees: an amount that does not cover the fees', () => {
  it('AMOUNT_TOO_LOW names, as details.min, the smallest amount that does (at least the asset minimum)', () => {
    fc.assert(
      fc.property(amountArb, bpsArb, bpsArb, fc.bigInt({ min: 1n, max: 10n ** 12n }).map(toAmount), fc.bigInt({ min: 0n, max: 1000n }).map(toAmount), (amount, feeBps, serviceFeeBps, networkFee, min) => {
        const input = { mode: 'exact_in' as const, amount, feeBps, serviceFeeBps, networkFee, min, max: U64_MAX };
        let details: { min: string } | undefined;
        try {
          quoteSameAsset(input);
          return;
        } catch (e) {
          if (!isHushError(e, 'AMOUNT_TOO_LOW') || amount < min || amount < 1n) return;
          details = e.details as { min: string };
        }
        const least = BigInt(details.min);
        assert.ok(least >= min && least > amount);
        const q = quoteSameAsset({ ...input, amount: toAmount(least) });
        assert.ok(q.amountOut >= 1n, 'the named minimum delivers');
        if (least - 1n >= min) assert.ok(deliver(least - 1n, feeBps, serviceFeeBps, networkFee) < 1n, 'and is the smallest that does');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('fees: cross asset', () => {
  const toUsdc = (lamports: Amount): Amount => toAmount((lamports * 150n) / 1000n); // 150 USDC/SOL, 9 → 6 decimals

  it('amountOut = convert(amountIn − fee), fees in the source asset', () => {
    fc.assert(
      fc.property(amountArb, bpsArb, bpsArb, networkFeeArb, (amount, feeBps, serviceFeeBps, networkFee) => {
        let q: FeeQuote;
        try {
          q = quoteCrossAsset({ mode: 'exact_in', amount, feeBps, serviceFeeBps, networkFee, min: ZERO, max: U64_MAX, convert: toUsdc });
        } catch (e) {
          assert.ok(isHushError(e, 'AMOUNT_TOO_LOW'));
          const net = deliver(amount, feeBps, serviceFeeBps, networkFee);
          assert.ok(net < 1n || toUsdc(toAmount(net)) < 1n);
          return;
        }
        checkInvariants(q, feeBps, serviceFeeBps, networkFee);
        assert.equal(q.amountIn, amount);
        assert.equal(q.amountOut, toUsdc(toAmount(amount - q.fee)));
      }),
      { numRuns: 3000 },
    );
  });

  it('amountOut is rounded down to the destination grid: a multiple of it, less than one step below the ungridded figure', () => {
    fc.assert(
      fc.property(amountArb, bpsArb, networkFeeArb, fc.bigInt({ min: 1n, max: 10n ** 6n }), (amount, feeBps, networkFee, grid) => {
        let q: FeeQuote;
        try {
          q = quoteCrossAsset({ mode: 'exact_in', amount, feeBps, serviceFeeBps: 30, networkFee, min: ZERO, max: U64_MAX, convert: toUsdc, grid });
        } catch (e) {
          assert.ok(isHushError(e, 'AMOUNT_TOO_LOW'));
          const net = deliver(amount, feeBps, 30, networkFee);
          assert.ok(net < 1n || toUsdc(toAmount(net)) < grid, 'refused only when less than one grid step is left');
          return;
        }
        const exact = toUsdc(toAmount(amount - q.fee));
        assert.equal(q.amountOut % grid, 0n);
        assert.ok(q.amountOut <= exact && exact - q.amountOut < grid);
      }),
      { numRuns: 2000 },
    );
    // Two swaps of one class a price tick apart pay the same amount.
    const at = (rate: bigint) => quoteCrossAsset({ ...base({ amount: A(1_000_000_000n) }), convert: (x) => toAmount((x * rate) / 1_000_000n), grid: 10_000n });
    assert.equal(at(150_000n).amountOut, at(150_001n).amountOut);
    assert.throws(() => quoteCrossAsset({ ...base({}), convert: toUsdc, grid: 0n }), RangeError);
  });

  it('exact_out is UNSUPPORTED_MODE; dust that converts to 0 is AMOUNT_TOO_LOW', () => {
    assert.throws(
      () => quoteCrossAsset({ ...base({ mode: 'exact_out' }), convert: toUsdc }),
      (e: unknown) => isHushError(e, 'UNSUPPORTED_MODE') && e.details.mode === 'exact_out',
    );
    assert.throws(() => quoteCrossAsset({ ...base({ amount: A(6), serviceFeeBps: 0 }), convert: toUsdc }), (e: unknown) =>
      isHushError(e, 'AMOUNT_TOO_LOW'),
    );
  });
});
