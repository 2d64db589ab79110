import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { expectedRelease, holdMs, type ReleasePolicy } from '../../src/domain/class-release.ts';
import { denominationsFor } from '../../src/domain/denomination-menu.ts';
import { toAmount } from '../../src/domain/money.ts';
import { estimatePrivacy, nearestStandard } from '../../src/domain/quote-privacy.ts';
import { arrivalsAtOdds } from '../../src/domain/class-forecast.ts';

/** A known rate per second as the forecast's evidence (per ms). */
const perMs = (perS: number | undefined) => (perS === undefined ? undefined : perS / 1000);
const USDC = [1, 2, 5, 10, 20, 50, 100, 200, 500].map((d) => BigInt(d) * 1_000_000n);
const ALL = { min: 1n, max: 10n ** 18n };
/** Target 8, a budget whose hold is 240 s, spread 5–30 s. */
const POLICY: ReleasePolicy = { targetSet: 8, fixedK: false, budgetMs: 272_000, ceilingMs: 3_600_000, spreadFromMs: 5_000, spreadMs: 25_000, minGapMs: 800, passEveryMs: 1_000 };

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
        assert.deepEqual(estimatePrivacy({ standard: false, classTraffic: perMs(rate), suggestedAmounts }, POLICY), {
          standard: false, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 0, suggestedAmounts, basis: 'measured',
        });
      }),
    );
  });

  it('a busy class fills to the target; a thin one is held to near its deadline with a smaller set; an idle or unmeasured one goes at once, alone', () => {
    const busy = estimatePrivacy({ standard: true, classTraffic: perMs(1), suggestedAmounts }, POLICY);
    assert.deepEqual([busy.anonymitySet, busy.anonymitySetLikely], [8, 8]);
    // 7 more arrive within about 9.1 s four times in five (Poisson at 1/s), then 80 % of the 5–30 s spread.
    assert.equal(busy.delaySeconds, Math.ceil(9.07 + 5 + 20));
    assert.equal(busy.basis, 'measured');
    // No traffic: not held for nothing (two slots, no spread), and the quote says why.
    for (const rate of [0, undefined]) {
      const idle = estimatePrivacy({ standard: true, classTraffic: perMs(rate), suggestedAmounts }, POLICY);
      assert.deepEqual([idle.anonymitySet, idle.delaySeconds, idle.basis], [1, 1, 'no_traffic']);
    }
    const slow = estimatePrivacy({ standard: true, classTraffic: perMs(0.01), suggestedAmounts }, POLICY);
    // 1 + 0.01 × (240 − 10.5) = 3.3 deposits by the time it goes, likely; at least 1 more four times in five.
    assert.deepEqual([slow.anonymitySet, slow.anonymitySetLikely], [2, 3]);
  });

  it('never promises more than the target, a delay beyond the budget, or a set below 1; more traffic never promises a smaller set', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 50, noNaN: true }), fc.double({ min: 0, max: 50, noNaN: true }), fc.integer({ min: 1, max: 64 }), (r1, r2, k) => {
        const policy = { ...POLICY, targetSet: k };
        const [lo, hi] = r1 <= r2 ? [r1, r2] : [r2, r1];
        const a = estimatePrivacy({ standard: true, classTraffic: perMs(lo), suggestedAmounts }, policy);
        const b = estimatePrivacy({ standard: true, classTraffic: perMs(hi), suggestedAmounts }, policy);
        for (const e of [a, b]) {
          assert.ok(e.anonymitySet >= 1 && e.anonymitySet <= k);
          assert.ok(e.delaySeconds <= Math.ceil(policy.budgetMs / 1000));
          assert.ok(Number.isInteger(e.delaySeconds) && Number.isInteger(e.anonymitySet));
        }
        assert.ok(b.anonymitySet >= a.anonymitySet);
        // A release of a class without traffic is not spread: two slots only.
        assert.equal(a.delaySeconds, Math.ceil(expectedRelease(lo / 1000, policy).promisedDelaySeconds + (lo / 1000 > 0 ? 25 : 0.8)));
        assert.ok(a.anonymitySetLikely >= a.anonymitySet && b.anonymitySetLikely >= a.anonymitySetLikely);
      }),
      { numRuns: 500 },
    );
  });
});

describe('estimatePrivacy with the partner\'s choice', () => {
  const suggestedAmounts = [toAmount(10_000_000n)];
  const CEILING_HOLD_S = holdMs({ ...POLICY, budgetMs: POLICY.ceilingMs }) / 1000;

  it('echoes the choice; with no traffic a patient member is promised its whole hold and no company', () => {
    const min = estimatePrivacy({ standard: true, classTraffic: perMs(undefined), suggestedAmounts, requested: { minAnonymitySet: 20 } }, POLICY);
    assert.deepEqual(min.requested, { minAnonymitySet: 20 });
    assert.deepEqual([min.anonymitySet, min.delaySeconds, min.basis], [1, Math.ceil(CEILING_HOLD_S + 25), 'no_traffic']);
    const max = estimatePrivacy({ standard: true, classTraffic: perMs(0), suggestedAmounts, requested: { maxDelaySeconds: 120 } }, POLICY);
    assert.deepEqual([max.anonymitySet, max.delaySeconds], [1, Math.ceil(120 - 30 - 2 + 25)]);
  });

  it('a set asked for is promised once the class can fill it within the ceiling; a bounded wait never promises past its bound', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-4, max: 50, noNaN: true }), fc.integer({ min: 2, max: 100 }), fc.integer({ min: 0, max: 7200 }), (rate, n, s) => {
        const min = estimatePrivacy({ standard: true, classTraffic: perMs(rate), suggestedAmounts, requested: { minAnonymitySet: n } }, POLICY);
        if (arrivalsAtOdds(rate / 1000, CEILING_HOLD_S * 1000, 0.2) >= n - 1) assert.equal(min.anonymitySet, n);
        if ((n - 1) / rate <= CEILING_HOLD_S) assert.equal(min.anonymitySetLikely, n);
        assert.ok(min.anonymitySet <= n && min.delaySeconds <= Math.ceil(POLICY.ceilingMs / 1000));
        const max = estimatePrivacy({ standard: true, classTraffic: perMs(rate), suggestedAmounts, requested: { maxDelaySeconds: s } }, POLICY);
        assert.ok(max.delaySeconds <= Math.max(Math.ceil(s), 25), `${max.delaySeconds} s quoted for a bound of ${s} s`);
        assert.ok(max.anonymitySet >= 1 && max.anonymitySet <= POLICY.targetSet);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the menu of private amounts', () => {
  const usdc = { min: 1_000_000n, max: 100_000_000_000n };
  it('decade: one amount per decade, 1·10ⁿ within the bounds (1 / 10 / 100 / 1,000 / 10,000 / 100,000 USDC)', () => {
    assert.deepEqual(denominationsFor('decade', usdc, []), [1n, 10n, 100n, 1000n, 10_000n, 100_000n].map((d) => d * 1_000_000n));
    assert.deepEqual(denominationsFor('decade', { min: 10_000_000n, max: 1_000_000_000_000n }, []), [10n ** 7n, 10n ** 8n, 10n ** 9n, 10n ** 10n, 10n ** 11n, 10n ** 12n], '0.01 … 1,000 SOL');
  });

  it('1-2-5 triples them; list is the asset file\'s own', () => {
    assert.deepEqual(denominationsFor('1-2-5', { min: 1_000_000n, max: 10_000_000n }, []), [1_000_000n, 2_000_000n, 5_000_000n, 10_000_000n]);
    assert.deepEqual(denominationsFor('list', usdc, [7n]), [7n]);
  });

  it('any bounds: ascending, within them, each a menu multiplier times a power of ten; decade ⊂ 1-2-5', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 19n }), fc.bigInt({ min: 0n, max: 10n ** 19n }), (a, b) => {
        const bounds = a <= b ? { min: a, max: b } : { min: b, max: a };
        const decade = denominationsFor('decade', bounds, []);
        const oneTwoFive = denominationsFor('1-2-5', bounds, []);
        for (const [menu, xs] of [['decade', decade], ['1-2-5', oneTwoFive]] as const) {
          xs.forEach((d, i) => {
            assert.ok(d >= bounds.min && d <= bounds.max);
            if (i > 0) assert.ok(d > xs[i - 1]!);
            const lead = d.toString()[0]!;
            assert.ok(/^[1-9]0*$/.test(d.toString()) && (menu === 'decade' ? lead === '1' : '125'.includes(lead)), `${menu}: ${d}`);
          });
        }
        assert.ok(decade.every((d) => oneTwoFive.includes(d)));
        // Every power of ten within the bounds is on the decade menu.
        for (let p = 1n; p <= bounds.max; p *= 10n) if (p >= bounds.min) assert.ok(decade.includes(p));
      }),
      { numRuns: 300 },
    );
  });
});
