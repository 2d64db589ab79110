/**
 * A young Hush's crowd goes out whole (issue 71; src/domain/class-release.ts releaseReason): a class the
 * crowd has reached only once or twice is held while the crowd arrives, a crowd still arriving is not cut at
 * the target, and both go together once the crowd's silence says it stopped; a lone order with no crowd
 * around it still goes at once (issue 41), and a warm Hush is steered as before. Pure, on injected times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classArrivals, type ClassArrivals } from '../../src/domain/class-forecast.ts';
import { decideRelease, expectedRelease, holdMs, releaseReason, type ReleasePolicy, type WaitingPayout } from '../../src/domain/class-release.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const policy: ReleasePolicy = { targetSet: 30, fixedK: false, budgetMs: 840_000, ceilingMs: 21_600_000, spreadFromMs: 5_000, spreadMs: 25_000, minGapMs: 800, passEveryMs: 1_000 };
const HOLD = holdMs(policy);
const BUCKETS = 360;
const BUCKET_MS = 10_000;
/** A fourteenth of the hold, as Hush's (build-class-release.ts): younger than this, Hush is young. */
const PRIOR_MS = HOLD / 14;
const NOW = 50_000_000;

/** What Hush has seen, `observedMs` into its life: arrivals at these ages (ms before NOW). */
function seen(agesMs: number[], observedMs: number): ClassArrivals {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (const age of agesMs) counts[BUCKETS - 1 - Math.floor(age / BUCKET_MS)]! += 1;
  return classArrivals(counts, BUCKET_MS, observedMs, PRIOR_MS, HOLD);
}

/** `n` arrivals evenly over the last `spanMs`, the newest `quietMs` ago. */
const evenly = (n: number, spanMs: number, quietMs = 0) => Array.from({ length: n }, (_, i) => quietMs + (i * spanMs) / n);

const members = (n: number, sinceMs: number, key = 'c'): WaitingPayout[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${key}${String(i).padStart(3, '0')}`, classKey: key, confirmedAt: NOW - sinceMs + (i * sinceMs) / (n + 1) }));
const asMembers = (ws: WaitingPayout[]) => ws.map((w) => ({ ...w, deadline: w.confirmedAt + HOLD, wants: policy.targetSet }));

describe('a young Hush in a crowd', () => {
  // Forty seconds of a crowd of two a second over six classes: 80 arrivals, Hush 40 s old (young: under PRIOR_MS).
  const crowd = seen(evenly(80, 40_000), 40_000);
  const nothing = seen([], 40_000);

  it('holds a class the crowd has reached only once or twice, instead of sending it in pieces as it arrives', () => {
    const going = asMembers(members(2, 20_000));
    // Its own traffic: one arrival (the other member; the first opened the waiting set) is no crowd of its own.
    const own = seen([10_000], 40_000);
    assert.equal(releaseReason(going, false, NOW, policy, own), 'no-traffic', 'without the crowd: at once, as on a cold start');
    assert.equal(releaseReason(going, false, NOW, policy, own, crowd), null, 'held while the crowd arrives');
    assert.equal(releaseReason(asMembers(members(1, 5_000)), false, NOW, policy, nothing, crowd), null, 'even its first member, with no traffic of its own yet');
  });

  it('lets it go together once the crowd has stopped', () => {
    // The same crowd, silent for the last 15 s: a thousand to one for its rate (class-forecast.ts stopped),
    // while Hush, 56 s old, is still young.
    const gone = seen(evenly(80, 40_000, 15_000), 56_000);
    const waiting = members(5, 55_000);
    const own = seen(waiting.slice(1).map((w) => NOW - w.confirmedAt), 56_000);
    assert.equal(decideRelease(waiting, NOW, policy, () => own, seeded(1), undefined, () => crowd).release.length, 0, 'held while the crowd arrived');
    const out = decideRelease(waiting, NOW, policy, () => own, seeded(1), undefined, () => gone);
    assert.equal(out.release.length, 5);
    assert.ok(out.release.every((r) => r.releasedWith === 5), 'one release of all five');
  });

  it('does not cut a crowd still arriving at its target; it goes whole once it stops, or when the hold ends', () => {
    const arriving = members(35, 20_000);
    const own = seen(arriving.slice(1).map((w) => NOW - w.confirmedAt), 40_000);
    assert.equal(releaseReason(asMembers(arriving), false, NOW, policy, own, crowd), null, '35 of a class still arriving: held past the target of 30');
    const quiet = seen(arriving.slice(1).map((w) => NOW - w.confirmedAt + 40_000), 80_000);
    assert.equal(releaseReason(asMembers(arriving), false, NOW, policy, quiet), 'target', 'silent since: all of it goes');
    const late = asMembers(arriving).map((m) => ({ ...m, deadline: NOW }));
    assert.equal(releaseReason(late, false, NOW, policy, own, crowd), 'budget', 'the earliest hold has run out');
    const out = decideRelease(arriving, NOW, policy, () => own, seeded(1), undefined, () => crowd);
    assert.equal(out.release.length, 0);
  });

  it('a member that asked for a set still goes when its set is there; a fixed k is not steered', () => {
    const asked = asMembers(members(35, 20_000)).map((m) => ({ ...m, wants: 20 }));
    const own = seen(asked.slice(1).map((w) => NOW - w.confirmedAt), 40_000);
    assert.equal(releaseReason(asked, true, NOW, policy, own, crowd), 'target');
    assert.equal(releaseReason(asMembers(members(35, 20_000)), false, NOW, { ...policy, fixedK: true }, own, crowd), 'target');
  });

  it('a lone order with nobody around it still goes at once, and so does one beside a single other deposit', () => {
    const lone = asMembers(members(1, 1_000));
    assert.equal(releaseReason(lone, false, NOW, policy, nothing, nothing), 'no-traffic');
    assert.equal(releaseReason(lone, false, NOW, policy, nothing, seen([3_000], 5_000)), 'no-traffic');
    // Five orders ten seconds apart, all of one class (the cold start): its crowd is itself, and no crowd.
    const cold = seen([10_000, 20_000, 30_000, 40_000], 41_000);
    assert.equal(releaseReason(lone, false, NOW, policy, cold, cold), 'no-traffic');
  });

  it('a warm Hush is steered as before: other classes busy do not hold a class with no traffic', () => {
    const warm = seen(evenly(2_000, 3_000_000), 3_600_000);
    const lone = asMembers(members(1, 1_000));
    assert.equal(releaseReason(lone, false, NOW, policy, seen([], 3_600_000), warm), 'no-traffic');
  });

  it('the quote promises the hold, not an immediate send, to a class held for the crowd', () => {
    const held = expectedRelease(nothing, policy, undefined, crowd);
    assert.equal(held.promisedDelaySeconds, HOLD / 1000);
    assert.equal(held.promisedBatch, 1);
    assert.equal(expectedRelease(nothing, policy, undefined, nothing).promisedDelaySeconds, 0, 'no crowd: at once');
  });
});
