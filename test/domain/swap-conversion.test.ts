import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isHushError } from '../../src/domain/errors.ts';
import { quoteCrossAsset } from '../../src/domain/fees.ts';
import { U64_MAX, ZERO, toAmount } from '../../src/domain/money.ts';
import { convertFloor, parsePrice, type Price } from '../../src/domain/price.ts';
import { type PricedAsset, convertForSwap, exactSwapValue, roundTripLossBound, swapRate } from '../../src/domain/swap-conversion.ts';

// ---------------------------------------------------------------- arbitraries

/** Decimal prices from 10^-14 to 10^12 USD, as the text a config or API would carry. */
const priceTextArb = fc.oneof(
  fc.constantFrom('0.00001234', '0.00002', '65000', '150', '1', '0.99987654', '148.23456789', '0.000000000001', '999999999999'),
  fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 14 })).map(([m, scale]) => {
    const s = m.toString().padStart(scale + 1, '0');
    return scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }),
);
const sideArb: fc.Arbitrary<PricedAsset> = fc.record({ price: priceTextArb.map(parsePrice), decimals: fc.integer({ min: 0, max: 12 }) });
const amountArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 10_000n }),
  fc.bigInt({ min: 0n, max: 10n ** 12n }),
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.bigInt({ min: U64_MAX - 10n ** 6n, max: U64_MAX }),
);
const spreadArb = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 9999 }));

/**
 * Independent oracle: the exact value computed step by step as a story (base units → whole tokens
 * → USD → destination tokens → destination base units → less spread), each step an exact fraction.
 */
function oracle(amount: bigint, from: PricedAsset, to: PricedAsset, spreadBps: number): { num: bigint; den: bigint } {
  let num = amount;
  let den = 10n ** BigInt(from.decimals); // whole source tokens
  num *= from.price.num; // USD
  den *= from.price.den;
  num *= to.price.den; // whole destination tokens
  den *= to.price.num;
  num *= 10n ** BigInt(to.decimals); // destination base units
  num *= BigInt(10_000 - spreadBps); // less spread
  den *= 10_000n;
  return { num, den };
}

const RUNS = { numRuns: 400 };

describe('convertForSwap', () => {
  it('matches hand-computed examples across decimals 9, 6 and 5', () => {
    const SOL = { price: parsePrice('150'), decimals: 9 };
    const USDC = { price: parsePrice('1'), decimals: 6 };
    const BONK = { price: parsePrice('0.00002'), decimals: 5 };
    // 1 SOL = $150 → 150 USDC, less 0.5 %: 149.25 USDC
    assert.equal(convertForSwap(1_000_000_000n, SOL, USDC, 50), 149_250_000n);
    // 1 USDC → 50 000 BONK = 5·10^9 base units, less 0.5 %
    assert.equal(convertForSwap(1_000_000n, USDC, BONK, 50), 4_975_000_000n);
    // 50 000 BONK → $1 → 1/150 SOL = 6 666 666.66… lamports: floor, no spread
    assert.equal(convertForSwap(5_000_000_000n, BONK, SOL, 0), 6_666_666n);
    // one base unit of BONK is worth 2·10^-10 USD: less than a USDC base unit → 0
    assert.equal(convertForSwap(1n, BONK, USDC, 0), 0n);
    assert.equal(convertForSwap(0n, SOL, USDC, 50), 0n);
  });

  it('is a single floor of the exact value: tight, never over-delivers (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, spreadArb, (amount, from, to, spread) => {
        const out = convertForSwap(amount, from, to, spread);
        const exact = oracle(amount, from, to, spread);
        // out ≤ exact < out + 1
        assert.ok(out * exact.den <= exact.num, 'over-delivers');
        assert.ok(exact.num < (out + 1n) * exact.den, 'rounded more than once / not the floor');
        const reported = exactSwapValue(amount, from, to, spread);
        assert.equal(reported.num * exact.den, exact.num * reported.den);
      }),
      RUNS,
    );
  });

  it('agrees with the existing convertFloor at spread 0 (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, (amount, from, to) => {
        assert.equal(convertForSwap(amount, from, to, 0), convertFloor(amount, from, to));
      }),
      RUNS,
    );
  });

  it('is monotonic non-decreasing in the amount (property)', () => {
    fc.assert(
      fc.property(amountArb, amountArb, sideArb, sideArb, spreadArb, (a, b, from, to, spread) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        assert.ok(convertForSwap(lo, from, to, spread) <= convertForSwap(hi, from, to, spread));
        // a step of one base unit never lowers the output
        assert.ok(convertForSwap(lo + 1n, from, to, spread) >= convertForSwap(lo, from, to, spread));
      }),
      RUNS,
    );
  });

  it('is non-increasing in the spread (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, spreadArb, spreadArb, (amount, from, to, s1, s2) => {
        const [lo, hi] = s1 <= s2 ? [s1, s2] : [s2, s1];
        assert.ok(convertForSwap(amount, from, to, hi) <= convertForSwap(amount, from, to, lo));
      }),
      RUNS,
    );
  });

  it('round trip A→B→A at spread 0 loses 0 ≤ x − z ≤ ⌈1/r⌉ units of A, strictly < 1 + 1/r (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, (x, a, b) => {
        const y = convertForSwap(x, a, b, 0);
        const z = convertForSwap(y, b, a, 0);
        const loss = x - z;
        const r = swapRate(a, b, 0); // B units per A unit = r.num / r.den
        assert.ok(loss >= 0n, 'a round trip created value');
        // x − z < 1 + 1/r  ⇔  (x − z)·r.num < r.num + r.den
        assert.ok(loss * r.num < r.num + r.den, `loss ${loss} breaks the strict bound`);
        assert.ok(loss <= roundTripLossBound(a, b));
        // when B's base unit is worth no more than A's (r ≥ 1), at most one unit of A is lost
        if (r.num >= r.den) assert.ok(loss <= 1n, `loss ${loss} > 1 with r ≥ 1`);
      }),
      RUNS,
    );
  });

  it('round trip with a spread never returns more than went in (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, spreadArb, (x, a, b, spread) => {
        assert.ok(convertForSwap(convertForSwap(x, a, b, spread), b, a, spread) <= x);
      }),
      RUNS,
    );
  });

  it('the round-trip loss is exactly ⌈e₁/r⌉, e₁ = x·r − y the first rounding in B units (property)', () => {
    fc.assert(
      fc.property(amountArb, sideArb, sideArb, (x, a, b) => {
        const r = swapRate(a, b, 0);
        const y = convertForSwap(x, a, b, 0);
        const z = convertForSwap(y, b, a, 0);
        // e₁/r = x − y/r = (x·r.num − y·r.den) / r.num ≥ 0
        const t = x * r.num - y * r.den;
        assert.equal(x - z, (t + r.num - 1n) / r.num);
      }),
      RUNS,
    );
  });

  it('the bound is met up to its discreteness: BONK→USDC→BONK loses up to 4999 of ⌈1/r⌉ = 5000 units', () => {
    // One USDC base unit ($10^-6) is worth 5000 BONK base units ($2·10^-10 each): 1/r = 5000.
    const BONK = { price: parsePrice('0.00002'), decimals: 5 };
    const USDC = { price: parsePrice('1'), decimals: 6 };
    assert.equal(roundTripLossBound(BONK, USDC), 5000n);
    assert.equal(convertForSwap(convertForSwap(4999n, BONK, USDC, 0), USDC, BONK, 0), 0n); // loss 4999
    assert.equal(convertForSwap(convertForSwap(5000n, BONK, USDC, 0), USDC, BONK, 0), 5000n); // loss 0
    assert.equal(convertForSwap(convertForSwap(14_999n, BONK, USDC, 0), USDC, BONK, 0), 10_000n); // loss 4999
    // The other way round B is coarser than nothing: USDC→BONK→USDC is exact (r ≥ 1 ⇒ loss ≤ 1, here 0).
    assert.equal(convertForSwap(convertForSwap(123_457n, USDC, BONK, 0), BONK, USDC, 0), 123_457n);
  });

  it('rejects inputs that are caller bugs', () => {
    const SOL = { price: parsePrice('150'), decimals: 9 };
    assert.throws(() => convertForSwap(-1n, SOL, SOL, 0), RangeError);
    assert.throws(() => convertForSwap(1n, SOL, SOL, 10_000), RangeError);
    assert.throws(() => convertForSwap(1n, SOL, SOL, -1), RangeError);
    assert.throws(() => convertForSwap(1n, SOL, SOL, 1.5), RangeError);
    assert.throws(() => convertForSwap(1n, { price: SOL.price, decimals: 31 }, SOL, 0), RangeError);
    assert.throws(() => convertForSwap(1n, { price: { num: 0n, den: 1n } as Price, decimals: 9 }, SOL, 0), RangeError);
  });

  it('plugs into quoteCrossAsset: amountOut = floor(convert(amountIn − fee))', () => {
    const SOL = { price: parsePrice('150'), decimals: 9 };
    const USDC = { price: parsePrice('1'), decimals: 6 };
    const q = quoteCrossAsset({
      mode: 'exact_in',
      amount: toAmount(2_000_000_000n),
      feeBps: 10,
      serviceFeeBps: 30,
      networkFee: toAmount(15_000n),
      min: ZERO,
      max: U64_MAX,
      convert: (net) => toAmount(convertForSwap(net, SOL, USDC, 50)),
    });
    // fee = 2 000 000 + 6 000 000 + 15 000; net = 1 991 985 000 lamports = $298.79775 → ×0.995 = 297.303761… USDC
    assert.equal(q.fee, 8_015_000n);
    assert.equal(q.amountOut, 297_303_761n);
    assert.equal(q.amountOut, convertForSwap(q.amountIn - q.fee, SOL, USDC, 50));
  });

  it('a conversion worth less than one destination unit is AMOUNT_TOO_LOW in a quote', () => {
    const BONK = { price: parsePrice('0.00002'), decimals: 5 };
    const SOL = { price: parsePrice('150'), decimals: 9 };
    assert.throws(
      () =>
        quoteCrossAsset({ mode: 'exact_in', amount: toAmount(50n), feeBps: 0, serviceFeeBps: 0, networkFee: ZERO, min: ZERO, max: U64_MAX, convert: (n) => toAmount(convertForSwap(n, BONK, SOL, 0)) }),
      (e) => isHushError(e, 'AMOUNT_TOO_LOW'),
    );
  });
});
