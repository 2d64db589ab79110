import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jitteredIntervalMs, partnerLot, payableLots } from '../../src/domain/settlement/partner-lots.ts';

describe('partner lots', () => {
  it('pays whole lots only, never more than owed, keeping less than a lot', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -10n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (owed, lot) => {
        const paid = payableLots(owed, lot);
        assert.ok(paid >= 0n && paid % lot === 0n);
        if (owed > 0n) assert.ok(paid <= owed && owed - paid < lot);
        else assert.equal(paid, 0n);
      }),
    );
  });
  it('a lot is a hundredth of the smallest standard amount, at least one unit', () => {
    assert.equal(partnerLot([1_000_000n, 2_000_000n]), 10_000n);
    assert.equal(partnerLot([10_000_000n]), 100_000n);
    assert.equal(partnerLot([50n]), 1n);
    assert.equal(partnerLot([]), 1n);
  });
  it('the schedule is jittered within half to one and a half intervals', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 7 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (ms, r) => {
      const next = jitteredIntervalMs(ms, () => r);
      assert.ok(next >= Math.floor(ms * 0.5) && next <= Math.ceil(ms * 1.5));
    }));
  });
});
