/**
 * Thin history (issue 71, src/domain/class-forecast.ts MIN_EPISODES): a class seen only once or twice in its
 * window is not yet a rate. It is held only while the rest of the hold brings anybody at the promise's odds;
 * otherwise it goes at once and its quote says so, its "likely" figure no more than its promise. (A partner's
 * repeated test send from one wallet is the simulated Hush's test: test/settlement/test-sends.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classArrivals, MIN_EPISODES, thinHistory, unproven } from '../../src/domain/class-forecast.ts';
import { decideRelease, expectedRelease, holdMs, type ReleasePolicy } from '../../src/domain/class-release.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const BUCKETS = 360;
const BUCKET_MS = 10_000;
const PRIOR_MS = 57_000;
const policy: ReleasePolicy = { targetSet: 30, fixedK: false, budgetMs: 840_000, ceilingMs: 21_600_000, spreadFromMs: 5_000, spreadMs: 25_000, minGapMs: 800, passEveryMs: 1_000 };

/** Arrival ages (ms before now) as Hush's buckets, oldest first. */
function bucketed(agesMs: number[]): number[] {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (const age of agesMs) counts[BUCKETS - 1 - Math.floor(age / BUCKET_MS)]! += 1;
  return counts;
}

/** What a Hush that has watched `watchedMs` has seen of arrivals at these ages, weighed as the service weighs them. */
const seenOver = (agesMs: number[], watchedMs: number) => classArrivals(bucketed(agesMs), BUCKET_MS, watchedMs, PRIOR_MS, holdMs(policy));

describe('thin history', () => {
  it('an old Hush holds no lone order for a class it saw once or twice in its window, whenever those were', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1_000, max: 3_590_000 }), { minLength: 1, maxLength: MIN_EPISODES - 1 }), fc.integer(), (ages, seed) => {
        const now = 50_000_000;
        const seen = seenOver(ages, BUCKETS * BUCKET_MS);
        assert.ok(thinHistory(seen));
        const out = decideRelease([{ id: 'me', classKey: 'c', confirmedAt: now - 1_000 }], now, policy, () => seen, seeded(seed));
        assert.equal(out.release.length, 1);
        const r = expectedRelease(seen, policy);
        assert.deepEqual([r.promisedBatch, r.batch, r.atOnce], [1, 1, true]);
      }),
      { numRuns: 200 },
    );
  });

  it('a class seen steadily, MIN_EPISODES times and more, is a rate again and is held for its company', () => {
    const now = 50_000_000;
    // One every five minutes over the hour: twelve episodes, the last a minute ago.
    const seen = seenOver(Array.from({ length: 12 }, (_, i) => 60_000 + i * 300_000), BUCKETS * BUCKET_MS);
    assert.equal(thinHistory(seen), false);
    assert.equal(decideRelease([{ id: 'me', classKey: 'c', confirmedAt: now - 1_000 }], now, policy, () => seen, seeded(1)).release.length, 0);
  });

  it('a burst of twenty within one bucket is one episode: thin, and long over it holds nobody', () => {
    const now = 50_000_000;
    const seen = seenOver(Array.from({ length: 20 }, () => 1_200_000), BUCKETS * BUCKET_MS);
    assert.ok(thinHistory(seen), `dispersion ${seen.dispersion}, seen ${seen.seen}`);
    assert.equal(decideRelease([{ id: 'me', classKey: 'c', confirmedAt: now - 1_000 }], now, policy, () => seen, seeded(1)).release.length, 1);
  });

  it('a crowd still arriving on a young Hush is held, and its quote\'s "likely" is its promise, not more', () => {
    const now = 50_000_000;
    // Eight arrivals two seconds apart on a Hush twenty seconds old: not yet a rate, and a crowd by its pace.
    const seen = seenOver(Array.from({ length: 8 }, (_, i) => 1_000 + i * 2_000), 20_000);
    assert.ok(unproven(seen));
    const waiting = [{ id: 'a', classKey: 'c', confirmedAt: now - 500 }];
    assert.equal(decideRelease(waiting, now, policy, () => seen, seeded(1)).release.length, 0, 'held for the crowd');
    const r = expectedRelease(seen, policy);
    // What twenty seconds of a crowd promise at 4 in 5 is little (it may stop at any moment); "likely" says no more.
    assert.equal(r.batch, r.promisedBatch);
    assert.equal(r.delaySeconds, r.promisedDelaySeconds);
  });
});
