/** Class release (docs/spec.md §9) as pure decisions: its guarantees for any waiting set and traffic, and the quote's estimate. */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classKey, decideRelease, expectedRelease, holdMs, MIN_EXPECTED_ARRIVALS, pinnedAmount, releaseReason, type ClassRate, type ReleasePolicy, type WaitingPayout } from '../../src/domain/class-release.ts';
import { payoutDueFor } from '../../src/domain/settlement/payout-delay.ts';
import { loadConfig } from '../../src/config/config.ts';
import { duePolicy } from '../../src/config/privacy-settings.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const policy: ReleasePolicy = { targetSet: 4, fixedK: false, budgetMs: 60_000, ceilingMs: 180_000, spreadFromMs: 1_000, spreadMs: 2_000, minGapMs: 800, passEveryMs: 1_000 };
const HOLD = holdMs(policy); // 55 s
const NOW = 1_000_000;

const waitingArb = fc
  .array(fc.record({ cls: fc.integer({ min: 0, max: 4 }), age: fc.integer({ min: 0, max: 120_000 }) }), { maxLength: 40 })
  .map((xs) => xs.map((x, i): WaitingPayout => ({ id: `p${String(i).padStart(2, '0')}`, classKey: `c${x.cls}`, confirmedAt: NOW - x.age })));
/** Per-class rates in deposits per ms, some unmeasured (undefined), some idle, some busy. */
const ratesArb = fc.array(fc.oneof(fc.constant(undefined), fc.constant(0), fc.double({ min: 1e-7, max: 1e-2, noNaN: true })), { minLength: 5, maxLength: 5 });
const rateFn = (rates: (number | undefined)[]): ClassRate => (key) => rates[Number(key.slice(1))];
const policyArb = fc.record({ targetSet: fc.integer({ min: 1, max: 30 }), fixedK: fc.boolean() }).map((p) => ({ ...policy, ...p }));

/** One decision, then `check` for each class: its members, its deadline, its rate and what was released. */
function eachClass(
  waiting: WaitingPayout[],
  rates: (number | undefined)[],
  p: ReleasePolicy,
  check: (c: { key: string; members: WaitingPayout[]; deadline: number; rate: number | undefined; released: Set<string>; sizes: Map<string, number> }) => void,
): void {
  const out = decideRelease(waiting, NOW, p, rateFn(rates), seeded(0));
  const released = new Set(out.release.map((r) => r.id));
  const sizes = new Map(out.release.map((r) => [r.id, r.releasedWith]));
  for (const key of new Set(waiting.map((w) => w.classKey))) {
    const members = waiting.filter((w) => w.classKey === key);
    check({ key, members, deadline: Math.min(...members.map((m) => m.confirmedAt)) + holdMs(p), rate: rates[Number(key.slice(1))], released, sizes });
  }
}

describe('decideRelease', () => {
  it('never later than the budget: every payout it schedules goes within the budget of its deposit, and a class past its hold goes', () => {
    fc.assert(
      fc.property(waitingArb, ratesArb, policyArb, fc.integer(), (waiting, rates, p, seed) => {
        const out = decideRelease(waiting, NOW, p, rateFn(rates), seeded(seed));
        const released = new Set(out.release.map((r) => r.id));
        assert.equal(released.size, out.release.length, 'each payout at most once');
        for (const r of out.release) {
          const w = waiting.find((x) => x.id === r.id)!;
          assert.ok(r.at <= Math.max(NOW, w.confirmedAt + p.budgetMs), `${r.id} sent ${r.at - w.confirmedAt} ms after its deposit`);
          assert.ok(r.at >= NOW);
        }
        for (const w of waiting) if (NOW - w.confirmedAt >= holdMs(p)) assert.ok(released.has(w.id), `${w.id} past its hold and still held`);
        // A class still held has its deadline ahead, and the earliest of them is reported.
        const open = waiting.filter((w) => !released.has(w.id));
        const expected = open.length ? Math.min(...open.map((w) => w.confirmedAt)) + holdMs(p) : null;
        assert.equal(out.nextDeadline, expected);
        if (expected !== null) assert.ok(expected > NOW);
      }),
      { numRuns: 500 },
    );
  });

  it('called once per pass, a class never waits past its budget: a payout is sent at most the budget after its deposit', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1e-3, noNaN: true }), policyArb, fc.integer(), (arrivals, rate, p, seed) => {
        const random = seeded(seed);
        const waiting: WaitingPayout[] = [];
        const sent = new Map<string, number>();
        const sorted = [...arrivals].sort((a, b) => a - b);
        let next = 0;
        for (let now = 0; now <= 200_000 + p.budgetMs; now += p.passEveryMs) {
          while (next < sorted.length && sorted[next]! <= now) waiting.push({ id: `p${String(next).padStart(2, '0')}`, classKey: 'c', confirmedAt: sorted[next++]! });
          const out = decideRelease(waiting, now, p, () => rate, random);
          for (const r of out.release) sent.set(r.id, r.at);
          for (let i = waiting.length - 1; i >= 0; i--) if (sent.has(waiting[i]!.id)) waiting.splice(i, 1);
        }
        assert.equal(sent.size, arrivals.length, 'everything released');
        // Within the budget, less the one pass the worker may take to send what is due.
        for (const [id, at] of sent) assert.ok(at - sorted[Number(id.slice(1))]! <= p.budgetMs - p.passEveryMs, `${id} held ${at - sorted[Number(id.slice(1))]!} ms`);
      }),
      { numRuns: 200 },
    );
  });

  it('never releases below the target while the budget and the class rate say it can still be reached', () => {
    fc.assert(
      fc.property(waitingArb, ratesArb, policyArb, (waiting, rates, p) =>
        eachClass(waiting, rates, p, ({ key, members, deadline, rate, released }) => {
          if (members.length >= p.targetSet || !members.some((m) => released.has(m.id))) return;
          // A class without traffic (unmeasured or idle) is not held for nothing, unless a fixed k holds it.
          const reachable = p.fixedK || (rate !== undefined && rate > 0 && rate * (deadline - NOW) >= p.targetSet - members.length);
          assert.ok(NOW >= deadline || !reachable, `${key}: ${members.length} of ${p.targetSet} released ${deadline - NOW} ms before its deadline at rate ${rate}`);
        }),
      ),
      { numRuns: 500 },
    );
  });

  it('releases a class whole, at the target, at its deadline, or when the rest of its hold is expected to bring almost nobody', () => {
    fc.assert(
      fc.property(waitingArb, ratesArb, policyArb, (waiting, rates, p) =>
        eachClass(waiting, rates, p, ({ key, members, deadline, rate, released, sizes }) => {
          const due = members.length >= p.targetSet || NOW >= deadline || (!p.fixedK && (rate === undefined || rate === 0 || rate * (deadline - NOW) < MIN_EXPECTED_ARRIVALS));
          for (const m of members) assert.equal(released.has(m.id), due, `${key}: ${members.length} waiting`);
          for (const m of members.filter((x) => released.has(x.id))) assert.equal(sizes.get(m.id), members.length);
        }),
      ),
      { numRuns: 500 },
    );
  });

  it('is independent of arrival order: the same waiting set releases the same payouts, whatever order it is listed in', () => {
    fc.assert(
      fc.property(waitingArb, ratesArb, policyArb, fc.integer(), (waiting, rates, p, seed) => {
        const shuffled = fc.sample(fc.shuffledSubarray(waiting, { minLength: waiting.length, maxLength: waiting.length }), { numRuns: 1, seed })[0]!;
        const ids = (ws: WaitingPayout[]) => decideRelease(ws, NOW, p, rateFn(rates), seeded(seed)).release.map((r) => r.id).sort();
        assert.deepEqual(ids(shuffled), ids(waiting));
      }),
      { numRuns: 300 },
    );
  });

  it('the sending order is a fresh random order: each deposit, earliest or latest, is sent first about equally often', () => {
    const members = Array.from({ length: 4 }, (_, i): WaitingPayout => ({ id: `p${i}`, classKey: 'c', confirmedAt: NOW - 1000 * (4 - i) }));
    const first = new Map<string, number>();
    const runs = 4000;
    for (let r = 0; r < runs; r++) {
      const out = decideRelease(members, NOW, policy, () => undefined, () => randomInt(2 ** 32) / 2 ** 32);
      first.set(out.release[0]!.id, (first.get(out.release[0]!.id) ?? 0) + 1);
    }
    for (const m of members) assert.ok(Math.abs(first.get(m.id)! / runs - 0.25) < 0.04, `${m.id} first ${first.get(m.id)} of ${runs}`);
  });

  it('a release is spread from the window minimum over the window, never before two slots after a deposit', () => {
    const members = Array.from({ length: 4 }, (_, i): WaitingPayout => ({ id: `p${i}`, classKey: 'c', confirmedAt: NOW - 10_000 + i }));
    const out = decideRelease(members, NOW, { ...policy, spreadFromMs: 5_000, spreadMs: 25_000, budgetMs: 600_000 }, () => undefined, Math.random);
    assert.equal(out.release.length, 4);
    for (const r of out.release) assert.ok(r.at >= NOW + 5_000 && r.at <= NOW + 30_000);
    const fresh = decideRelease([{ id: 'a', classKey: 'c', confirmedAt: NOW }], NOW, { ...policy, targetSet: 1, spreadFromMs: 0, spreadMs: 0 }, () => undefined, Math.random);
    assert.equal(fresh.release[0]!.at, NOW + policy.minGapMs);
  });

  it('classes are the pair, the mode and the pinned amount; a target below one is refused', () => {
    const base = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_out', pinnedAmount: 10_000_000n };
    assert.equal(classKey(base), classKey({ ...base }));
    for (const other of [{ mode: 'exact_in' }, { pinnedAmount: 20_000_000n }, { destinationAssetId: 'sol' }]) assert.notEqual(classKey({ ...base, ...other }), classKey(base));
    assert.throws(() => decideRelease([], NOW, { ...policy, targetSet: 0 }, () => undefined, Math.random), RangeError);
  });

  it('the reasons, one by one', () => {
    const at = (n: number, confirmedAt: number, wants = policy.targetSet) => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, classKey: 'c', confirmedAt, deadline: confirmedAt + HOLD, wants }));
    assert.equal(releaseReason(at(4, NOW), false, NOW, policy, undefined), 'target');
    assert.equal(releaseReason(at(1, NOW - HOLD), false, NOW, policy, undefined), 'budget');
    assert.equal(releaseReason(at(1, NOW), false, NOW, policy, undefined), 'no-traffic', 'unmeasured traffic: not held for nothing');
    assert.equal(releaseReason(at(1, NOW), false, NOW, policy, 0), 'no-traffic', 'a class nobody else uses goes at once');
    assert.equal(releaseReason(at(1, NOW), true, NOW, policy, 0), null, 'unless a member asked to wait');
    assert.equal(releaseReason(at(1, NOW), false, NOW, { ...policy, fixedK: true }, 0), null, 'a fixed k holds to the deadline');
    assert.equal(releaseReason(at(2, NOW), false, NOW, policy, 1 / HOLD), null, 'about one more expected: worth waiting');
    assert.equal(releaseReason(at(2, NOW), false, NOW, policy, 0.01 / HOLD), 'too-slow', 'a tenth of one expected: not worth the wait');
    assert.equal(releaseReason(at(2, NOW, 2), true, NOW, policy, undefined), 'target', 'every member has the set it asked for');
  });
});

describe('expectedRelease', () => {
  /** The central estimate of a known rate per second (expectedRelease reads evidence per ms). */
  const central = (perS: number | undefined, p: Parameters<typeof expectedRelease>[1], choice?: Parameters<typeof expectedRelease>[2]) => {
    const e = expectedRelease(perS === undefined ? undefined : perS / 1000, p, choice);
    return { delaySeconds: e.delaySeconds, batch: e.batch };
  };
  const quoted = { ...policy, targetSet: 8, budgetMs: 300_000, spreadFromMs: 0, spreadMs: 0, passEveryMs: 0 };
  it('releases more together as a class gets busier, and once it fills waits less; never beyond the hold or the target', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), fc.integer({ min: 1, max: 50 }), fc.boolean(), (a, b, k, fixedK) => {
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const p = { ...quoted, targetSet: k, fixedK };
        const slow = expectedRelease(lo / 1000, p);
        const busy = expectedRelease(hi / 1000, p);
        // A class too thin to fill goes sooner the thinner it is (waiting would buy nobody); one that fills, sooner the busier.
        if (slow.batch === k) assert.ok(busy.delaySeconds <= slow.delaySeconds + 1e-9, `${lo} → ${slow.delaySeconds}, ${hi} → ${busy.delaySeconds}`);
        assert.ok(busy.batch >= slow.batch - 1e-9);
        for (const e of [slow, busy]) {
          assert.ok(e.delaySeconds >= 0 && e.delaySeconds <= 300);
          assert.ok(e.batch >= 1 && e.batch <= k);
          // The promise never claims more than the central estimate, nor a shorter wait than the hold allows.
          assert.ok(e.promisedBatch >= 1 && e.promisedBatch <= e.batch + 1e-9, `promised ${e.promisedBatch}, likely ${e.batch}`);
          assert.ok(e.promisedDelaySeconds >= 0 && e.promisedDelaySeconds <= 300);
        }
      }),
    );
    assert.deepEqual(central(undefined, quoted), { delaySeconds: 0, batch: 1 }, 'unmeasured: no traffic, so at once');
    assert.deepEqual(central(undefined, { ...quoted, fixedK: true }), { delaySeconds: 300, batch: 1 }, 'a fixed k: the hold');
    assert.deepEqual(central(undefined, quoted, { minAnonymitySet: 5 }), { delaySeconds: holdMs({ ...quoted, budgetMs: quoted.ceilingMs }) / 1000, batch: 1 }, 'patient, no traffic: its whole hold');
    assert.deepEqual(central(0, quoted), { delaySeconds: 0, batch: 1 }, 'idle: released at once, alone');
    assert.deepEqual(central(1, quoted), { delaySeconds: 3.5, batch: 8 }, 'busy: half of the fill time of 7 more');
  });

  it('a member waiting for a set its class cannot fill within the ceiling is promised the class at the oldest ceiling, not its set', () => {
    const ceilingHoldS = holdMs({ ...quoted, budgetMs: quoted.ceilingMs }) / 1000;
    // 19 more are needed; at this rate the ceiling's hold brings about half of them.
    const rate = 9 / ceilingHoldS;
    const thin = central(rate, quoted, { minAnonymitySet: 20 });
    // Nobody holds out for a set out of reach: the class goes together when its oldest member's hold runs out,
    // so a member waits half the hold on average and goes with the hold's arrivals.
    assert.equal(thin.delaySeconds, ceilingHoldS / 2, 'half the hold, on average');
    assert.ok(Math.abs(thin.batch - 10) < 1e-9, `sent with ${thin.batch}: the hold's arrivals, not its set and not alone`);
    // Busy enough to fill within the ceiling: the set, after half the fill time.
    assert.deepEqual(central(20 / ceilingHoldS, quoted, { minAnonymitySet: 20 }), { delaySeconds: (19 * ceilingHoldS) / 20 / 2, batch: 20 });
  });
});

describe('payoutDueFor', () => {
  // The default configuration's own due policy: ties the fallback due time to the budget (840 s).
  const defaults = duePolicy(loadConfig({}));
  const p = { privacy: 'on' as const, delayS: defaults.delayS, holdMs: defaults.holdMs, minGapMs: 800 };
  const defaultHold = defaults.holdMs(undefined);
  it('privacy on: a private payout is due one pass after its class\'s latest release, plus the spread, within the budget; a non-private one after two slots only', () => {
    assert.equal(defaultHold, 840_000 - 30_000 - 1_000, 'the hold less the spread and the worker\'s pass');
    assert.equal(defaults.holdMs({ minAnonymitySet: 20 }), 21_600_000 - 30_000 - 1_000, 'a member waiting for a set: the ceiling (6 h)');
    assert.equal(defaults.holdMs({ maxDelaySeconds: 120 }), 120_000 - 30_000 - 1_000, 'a member that named its wait: that wait');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (from, r) => {
        const draw = (n: number) => Math.floor(r * n);
        const std = payoutDueFor(new Date(from), true, p, draw).getTime();
        assert.ok(std >= from + defaultHold + 5_000 && std <= from + 840_000 - 1_000, `due ${std - from} ms after the deposit`);
        assert.equal(payoutDueFor(new Date(from), false, p, draw).getTime(), from + 800);
      }),
    );
  });

  it('the pinned amount is amountIn under exact_in and amountOut under exact_out', () => {
    assert.equal(pinnedAmount({ mode: 'exact_in', amountIn: 10n, amountOut: 9n }), 10n);
    assert.equal(pinnedAmount({ mode: 'exact_out', amountIn: 10n, amountOut: 9n }), 9n);
  });
});
