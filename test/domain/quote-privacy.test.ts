import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { expectedRelease } from '../../src/domain/class-release.ts';
import { toAmount } from '../../src/domain/money.ts';
import { estimatePrivacy, nearestStandard } from '../../src/domain/quote-privacy.ts';

const USDC = [1, 2, 5, 10, 20, 50, 100, 200, 500].map((d) => BigInt(d) * 1_000_000n);
const ALL = { min: 1n, max: 10n ** 18n };
const POLICY = { k: 8, maxDelayS: 240, spreadS: { min: 5, max: 30 } };

describe('nearestStandard', () => {
  it('suggests the closest denominations by ratio, ascending, the amount itself when standard', () => {
    assert.deepEqual(nearestStandard(19_000_000n, USDC, ALL), [5_000_000n, 10_000_000n, 20_000_000n, 50_000_000n]);
    assert.deepEqual(nearestStandard(20_000_000n, USDC, ALL).includes(toAmount(20_000_000n)), true);
    // 1 and 500 are the extremes: below and above everything, the nearest four are at one end.
    assert.deepEqual(nearestStandard(1n, USDC, ALL), USDC.slice(0, 4));
    assert.deepEqual(nearestStandard(10n ** 15n, USDC, ALL), USDC.slice(-4));
  });

  it('never suggests an amount outside the live bounds', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 9n }), (amount, a, b) => {
        const bounds = a <= b ? { min: a, max: b } : { min: b, max: a };
        const out = nearestStandard(amount, USDC, bounds);
        assert.ok(out.length <= 4);
        assert.ok(out.every((d) => d >= bounds.min && d <= bounds.max && USDC.includes(d)));
        assert.deepEqual([...out].sort((x, y) => (x < y ? -1 : 1)), out);
        // Nothing left out is nearer than something kept.
        const far = (d: bigint) => Math.abs(Math.log(Number(d) / Number(amount)));
        const worstKept = Math.max(...out.map(far));
        for (const d of USDC) if (d >= bounds.min && d <= bounds.max && !out.includes(toAmount(d))) assert.ok(far(d) >= worstKept - 1e-12);
      }),
      { numRuns: 300 },
    );
  });
});

describe('estimatePrivacy', () => {
  const suggestedAmounts = [toAmount(10_000_000n)];

  it('promises nothing for a non-standard amount and adds no wait to it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (rate) => {
        assert.deepEqual(estimatePrivacy({ standard: false, classRatePerS: rate, suggestedAmounts }, POLICY, 30), {
          standard: false, anonymitySet: 1, delaySeconds: 0, suggestedAmounts,
        });
      }),
    );
  });

  it('with privacy off promises a set of 1 and the configured delay', () => {
    const e = estimatePrivacy({ standard: true, classRatePerS: 5, suggestedAmounts }, null, 29.5);
    assert.equal(e.anonymitySet, 1);
    assert.equal(e.delaySeconds, 30);
  });

  it('a busy class fills to k before the cap; an idle one waits the cap with a smaller set', () => {
    const busy = estimatePrivacy({ standard: true, classRatePerS: 1, suggestedAmounts }, POLICY, 30);
    assert.equal(busy.anonymitySet, 8);
    assert.equal(busy.delaySeconds, Math.ceil(7 + 17.5));
    const idle = estimatePrivacy({ standard: true, classRatePerS: 0, suggestedAmounts }, POLICY, 30);
    assert.equal(idle.anonymitySet, 1);
    assert.equal(idle.delaySeconds, Math.ceil(240 + 17.5));
    const slow = estimatePrivacy({ standard: true, classRatePerS: 0.01, suggestedAmounts }, POLICY, 30);
    assert.equal(slow.anonymitySet, 3); // 1 + 0.01 × 240 = 3.4 deposits by the cap
  });

  it('never promises more than k, a delay beyond cap + spread, or a set below 1; more traffic never promises less', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 50, noNaN: true }), fc.double({ min: 0, max: 50, noNaN: true }), fc.integer({ min: 1, max: 64 }), (r1, r2, k) => {
        const policy = { ...POLICY, k };
        const [lo, hi] = r1 <= r2 ? [r1, r2] : [r2, r1];
        const a = estimatePrivacy({ standard: true, classRatePerS: lo, suggestedAmounts }, policy, 30);
        const b = estimatePrivacy({ standard: true, classRatePerS: hi, suggestedAmounts }, policy, 30);
        for (const e of [a, b]) {
          assert.ok(e.anonymitySet >= 1 && e.anonymitySet <= k);
          assert.ok(e.delaySeconds <= Math.ceil(policy.maxDelayS + 17.5));
          assert.ok(Number.isInteger(e.delaySeconds) && Number.isInteger(e.anonymitySet));
        }
        assert.ok(b.anonymitySet >= a.anonymitySet);
        assert.ok(b.delaySeconds <= a.delaySeconds);
        assert.equal(a.delaySeconds, Math.ceil(expectedRelease(lo, { k, maxDelayMs: 240_000 }).delaySeconds + 17.5));
      }),
      { numRuns: 500 },
    );
  });
});
