/**
 * The class forecast (src/domain/class-forecast.ts, issue 51): a burst is not a steady rate, a crowd still
 * arriving is not "no traffic", and the lower quantile a quote promises holds at its odds under steady
 * traffic and under bursts alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { anyArrivalWeight, arrivalsAtOdds, classArrivals, dispersionOf, hasTraffic, meanArrivals, spanForAnyArrivalWeight, spanToBring, stopped } from '../../src/domain/class-forecast.ts';
import { decideRelease, MIN_EXPECTED_ARRIVALS, type ReleasePolicy } from '../../src/domain/class-release.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const BUCKETS = 360;
const BUCKET_MS = 10_000; // a window of an hour
const HOLD_MS = 808_000;
const PRIOR_MS = 57_000;

/** `arrivals` arrival times (ms before now) bucketed as Hush does, oldest bucket first. */
function bucketed(agesMs: number[]): number[] {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (const age of agesMs) {
    const b = Math.floor(age / BUCKET_MS);
    if (b >= 0 && b < BUCKETS) counts[BUCKETS - 1 - b]! += 1;
  }
  return counts;
}

/** Poisson arrival ages within `spanMs` at `perMs`, or clustered in episodes of `size` when size > 1. */
function arrivalsOver(spanMs: number, perMs: number, size: number, rand: () => number, offsetMs = 0): number[] {
  const out: number[] = [];
  for (let t = -Math.log(1 - rand()) / (perMs / size); t < spanMs; t += -Math.log(1 - rand()) / (perMs / size)) {
    for (let i = 0; i < size; i++) out.push(offsetMs + t + rand() * 2_000);
  }
  return out;
}

describe('class forecast', () => {
  it('a burst is not a steady rate: the same arrivals in one episode promise less company than spread over the window', () => {
    fc.assert(
      // A burst of the last few minutes: one long past reads as traffic that stopped (below).
      fc.property(fc.integer({ min: 4, max: 60 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 60_000, max: 1_800_000 }), (n, at, span) => {
        const burst = bucketed(Array.from({ length: n }, (_, i) => at * BUCKET_MS + (i % 3) * BUCKET_MS));
        const spread = bucketed(Array.from({ length: n }, (_, i) => ((i + 0.5) * BUCKETS * BUCKET_MS) / n));
        const b = classArrivals(burst, BUCKET_MS, BUCKETS * BUCKET_MS, PRIOR_MS);
        const s = classArrivals(spread, BUCKET_MS, BUCKETS * BUCKET_MS, PRIOR_MS);
        assert.equal(b.arrivals, s.arrivals);
        assert.ok(b.dispersion > s.dispersion, `burst dispersion ${b.dispersion}, spread ${s.dispersion}`);
        // The central estimate is the same rate; the promise and the odds of anybody are not.
        assert.ok(Math.abs(meanArrivals(b, span) - meanArrivals(s, span)) < 1e-9);
        assert.ok(arrivalsAtOdds(b, span, 0.2) <= arrivalsAtOdds(s, span, 0.2), `burst promises ${arrivalsAtOdds(b, span, 0.2)}, spread ${arrivalsAtOdds(s, span, 0.2)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('a crowd still arriving is traffic: on a fresh Hush, a few arrivals within seconds already make a rate, and waiting on is worth it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1_000, max: 60_000 }), (n, observed) => {
        const crowd = classArrivals(bucketed(Array.from({ length: n }, (_, i) => (i * observed) / n)), BUCKET_MS, observed, PRIOR_MS);
        assert.ok(hasTraffic(crowd));
        assert.ok(anyArrivalWeight(crowd, HOLD_MS) >= MIN_EXPECTED_ARRIVALS, `${n} arrivals in ${observed} ms: ${anyArrivalWeight(crowd, HOLD_MS)}`);
        // The prior silence keeps a handful in the first seconds from reading as hundreds a minute.
        assert.ok(meanArrivals(crowd, 60_000) <= (n * 60_000) / PRIOR_MS + 1e-9);
      }),
    );
    assert.equal(hasTraffic(classArrivals(new Array(BUCKETS).fill(0), BUCKET_MS, 5_000, PRIOR_MS)), false, 'nothing seen: no traffic');
  });

  it('the release holds a crowd that is still arriving, and does not hold a lone member with no other deposit', () => {
    const policy: ReleasePolicy = { targetSet: 30, fixedK: false, budgetMs: 840_000, ceilingMs: 21_600_000, spreadFromMs: 5_000, spreadMs: 25_000, minGapMs: 800, passEveryMs: 1_000 };
    fc.assert(
      // A crowd: three or more, at least one every two seconds (two alone are not yet one: young()).
      fc.property(fc.integer({ min: 3, max: 29 }), fc.double({ min: 0.2, max: 1, noNaN: true }), (n, share) => {
        const spanMs = Math.round(2_000 * n * share);
        const now = 10_000_000;
        const waiting = Array.from({ length: n }, (_, i) => ({ id: `w${String(i).padStart(2, '0')}`, classKey: 'c', confirmedAt: now - spanMs + (i * spanMs) / n }));
        // The pass's traffic: the class's deposits but its waiting set's opener (release-classes.ts).
        const others = classArrivals(bucketed(waiting.slice(1).map((w) => now - w.confirmedAt)), BUCKET_MS, spanMs, PRIOR_MS);
        assert.equal(decideRelease(waiting, now, policy, () => others, seeded(1)).release.length, 0, `${n} in ${spanMs} ms released before the target`);
        const lone = decideRelease(waiting.slice(0, 1), now, policy, () => classArrivals(new Array(BUCKETS).fill(0), BUCKET_MS, spanMs, PRIOR_MS), seeded(1));
        assert.equal(lone.release.length, 1, 'a lone member is not held for nothing');
      }),
    );
  });

  it('a young Hush does not hold what is not a crowd: at a cold start, orders ten seconds apart each go at once', () => {
    const policy: ReleasePolicy = { targetSet: 30, fixedK: false, budgetMs: 840_000, ceilingMs: 21_600_000, spreadFromMs: 5_000, spreadMs: 25_000, minGapMs: 800, passEveryMs: 1_000 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 10_000, max: 20_000 }), (before, gapMs) => {
        // While young (watched less than the prior silence); after that the class's rate is measured and steers.
        fc.pre(before * gapMs + 1_000 < PRIOR_MS);
        const now = 10_000_000;
        // `before` orders gapMs apart have gone already; the newest waits alone, seen by a Hush as old as they are.
        const ages = Array.from({ length: before }, (_, i) => (i + 1) * gapMs);
        const seen = classArrivals(bucketed(ages), BUCKET_MS, before * gapMs + 1_000, PRIOR_MS);
        const decision = decideRelease([{ id: 'w', classKey: 'c', confirmedAt: now - 1_000 }], now, policy, () => seen, seeded(1));
        assert.equal(decision.release.length, 1, `held after ${before} orders ${gapMs} ms apart`);
        assert.ok(decision.release[0]!.at <= now + policy.minGapMs, 'at once: the two slots only');
      }),
    );
  });

  it('the promise holds at its odds: the 20 % quantile is reached at least about four times in five, for steady traffic and for bursts', () => {
    fc.assert(
      fc.property(fc.double({ min: 2e-6, max: 2e-4, noNaN: true }), fc.constantFrom(1, 1, 4, 10), fc.integer({ min: 120_000, max: 900_000 }), fc.integer(), (perMs, size, span, seed) => {
        const rand = seeded(seed);
        let kept = 0;
        const trials = 200;
        for (let k = 0; k < trials; k++) {
          const past = arrivalsOver(BUCKETS * BUCKET_MS, perMs, size, rand);
          const seen = classArrivals(bucketed(past), BUCKET_MS, BUCKETS * BUCKET_MS, PRIOR_MS);
          const promised = arrivalsAtOdds(hasTraffic(seen) ? seen : undefined, span, 0.2);
          const future = arrivalsOver(span, perMs, size, rand).length;
          if (future >= promised) kept++;
        }
        assert.ok(kept / trials >= 0.74, `kept ${kept} of ${trials} at ${perMs * 1000}/s, episodes of ${size}, over ${span} ms`);
      }),
      { numRuns: 25 },
    );
  });

  it('its quantities agree: more span never promises fewer, the span to bring n brings n, and the any-arrival span inverts its weight', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 500, noNaN: true }), fc.double({ min: 1_000, max: 4_000_000, noNaN: true }), fc.double({ min: 1, max: 20, noNaN: true }), fc.integer({ min: 1, max: 30 }), (arrivals, exposureMs, dispersion, n) => {
        const e = { arrivals, exposureMs, dispersion };
        let last = 0;
        for (const span of [1_000, 10_000, 100_000, 1_000_000]) {
          const got = arrivalsAtOdds(e, span, 0.2);
          assert.ok(got >= last && got <= arrivalsAtOdds(e, span, 0.5) + 1e-9);
          last = got;
        }
        const within = spanToBring(e, n, 0.2, 3_600_000);
        if (within !== undefined) assert.ok(arrivalsAtOdds(e, within, 0.2) >= n);
        const span = spanForAnyArrivalWeight(e, 0.1);
        if (Number.isFinite(span) && span < 1e12) assert.ok(Math.abs(anyArrivalWeight(e, span) - 0.1) < 1e-6);
      }),
    );
    assert.equal(dispersionOf([0, 0, 0]), 1);
    assert.ok(dispersionOf([0, 0, 30, 0, 0, 0]) > 20);
  });
});

describe('a crowd that has gone', () => {
  it('is read as stopped once its silence is a thousand to one for the rate it came at before it, and not while it may still be arriving', () => {
    const crowdOver = (silenceMs: number) => classArrivals(bucketed(Array.from({ length: 40 }, (_, i) => silenceMs + i * 1_500)), BUCKET_MS, 60_000 + silenceMs, PRIOR_MS);
    // 40 in a minute, then 30 s of nobody: at the 40 in 117 s it read before the silence (a minute and the prior
    // silence), 30 s of nobody is e^−10; 10 s is e^−3.4, not yet.
    assert.equal(stopped(crowdOver(30_000)), true);
    assert.equal(stopped(crowdOver(10_000)), false);
    assert.equal(anyArrivalWeight(crowdOver(30_000), HOLD_MS), 0, 'nobody expected: the class goes with the company it has (too-slow)');
    // Four arrivals, then ten minutes of nobody: stopped. Counted over an exposure that took in the silence, four
    // arrivals could never be more surprising than 4, and such a class was held to its deadline.
    const four = classArrivals(bucketed([600_000, 610_000, 620_000, 630_000]), BUCKET_MS, 640_000, PRIOR_MS);
    assert.equal(stopped(four), true);
    assert.equal(stopped(crowdOver(0)), false);
    assert.ok(anyArrivalWeight(crowdOver(0), HOLD_MS) > MIN_EXPECTED_ARRIVALS);
    // A steady thin class is not read as stopped by a gap its rate makes likely.
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, u) => {
        const gap = (BUCKETS * BUCKET_MS) / n;
        const steady = classArrivals(bucketed(Array.from({ length: n }, (_, i) => u * gap + i * gap)), BUCKET_MS, BUCKETS * BUCKET_MS, PRIOR_MS);
        assert.equal(stopped(steady), false);
      }),
    );
  });
});
