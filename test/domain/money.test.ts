import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { U64_MAX, formatAmount, isAmount, parseAmount, toAmount } from '../../src/domain/money.ts';

describe('money', () => {
  it('accepts exactly ^(0|[1-9][0-9]*)$ within u64', () => {
    assert.equal(parseAmount('0'), 0n);
    assert.equal(parseAmount('1'), 1n);
    assert.equal(parseAmount('18446744073709551615'), U64_MAX);
    for (const bad of ['', '00', '01', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '1\n', '0x10', '١', '18446744073709551616',
      '99999999999999999999', '100000000000000000000000']) {
      assert.equal(parseAmount(bad), null, JSON.stringify(bad));
    }
    assert.equal(parseAmount(5 as unknown as string), null);
  });

  it('parse ∘ format is the identity on u64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: U64_MAX }), (v) => {
        const a = toAmount(v);
        assert.equal(parseAmount(formatAmount(a)), a);
      }),
    );
  });

  it('toAmount and isAmount reject values outside u64', () => {
    assert.throws(() => toAmount(-1n), RangeError);
    assert.throws(() => toAmount(U64_MAX + 1n), RangeError);
    assert.equal(isAmount(1), false);
    assert.equal(isAmount(1n), true);
  });
});
