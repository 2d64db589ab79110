import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareFractions, fromMantissaExponent, parseDecimalFraction, parsePositivePrice, reduce } from '../../src/domain/exact-decimal.ts';

describe('parseDecimalFraction', () => {
  it('parses decimal text exactly, including what a double cannot hold', () => {
    assert.deepEqual(parseDecimalFraction('0.0000123'), { num: 123n, den: 10_000_000n });
    assert.deepEqual(parseDecimalFraction('147.48'), { num: 3687n, den: 25n });
    assert.deepEqual(parseDecimalFraction('65000'), { num: 65000n, den: 1n });
    assert.deepEqual(parseDecimalFraction('-2.5'), { num: -5n, den: 2n });
    assert.deepEqual(parseDecimalFraction('2.13456e-5'), reduce({ num: 213456n, den: 10n ** 10n }));
    assert.deepEqual(parseDecimalFraction('1E+3'), { num: 1000n, den: 1n });
    // 0.1 + 0.2 style trap: the text 148.23456789123456789 has more digits than a double keeps
    assert.deepEqual(parseDecimalFraction('148.23456789123456789'), reduce({ num: 14823456789123456789n, den: 10n ** 17n }));
  });

  it('refuses what is not JSON-number text', () => {
    for (const bad of ['', ' 1', '1 ', '+1', '01', '1.', '.5', 'NaN', 'Infinity', '0x10', '1e', '1e+', '1,5', '1e999', '--1']) {
      assert.equal(parseDecimalFraction(bad), null, bad);
    }
  });

  it('parsePositivePrice refuses zero and negatives', () => {
    assert.equal(parsePositivePrice('0'), null);
    assert.equal(parsePositivePrice('0.000'), null);
    assert.equal(parsePositivePrice('-1'), null);
    assert.deepEqual(parsePositivePrice('0.00002'), { num: 1n, den: 50_000n });
  });

  it('digits.digits e±exp text is exactly that value (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: -30, max: 30 }), fc.boolean(), (m, scale, exp, neg) => {
        const digits = m.toString().padStart(scale + 1, '0');
        const body = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
        const text = `${neg ? '-' : ''}${body}e${exp}`;
        const f = parseDecimalFraction(text);
        assert.ok(f, text);
        // value = ±m × 10^(exp − scale)
        const k = exp - scale;
        const expected = reduce(k >= 0 ? { num: (neg ? -m : m) * 10n ** BigInt(k), den: 1n } : { num: neg ? -m : m, den: 10n ** BigInt(-k) });
        assert.deepEqual(f, expected);
        assert.equal(compareFractions(f, expected), 0);
      }),
      { numRuns: 300 },
    );
  });

  it('fromMantissaExponent is mantissa × 10^expo exactly', () => {
    assert.deepEqual(fromMantissaExponent(14823456789n, -8), reduce({ num: 14823456789n, den: 10n ** 8n }));
    assert.deepEqual(fromMantissaExponent(212345n, -10), reduce({ num: 212345n, den: 10n ** 10n }));
    assert.deepEqual(fromMantissaExponent(7n, 2), { num: 700n, den: 1n });
    assert.throws(() => fromMantissaExponent(1n, 1000), RangeError);
  });

  it('compareFractions orders exactly', () => {
    assert.equal(compareFractions({ num: 1n, den: 3n }, { num: 333333n, den: 1000000n }), 1);
    assert.equal(compareFractions({ num: 2n, den: 4n }, { num: 1n, den: 2n }), 0);
    assert.equal(compareFractions({ num: -1n, den: 2n }, { num: 0n, den: 1n }), -1);
  });
});
