/** Class release (SPEC §9) as pure decisions: its guarantees for any waiting set, and the quote's estimate. */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classKey, decideRelease, expectedRelease, pinnedAmount, type ClassPolicy, type WaitingPayout } from '../../src/domain/class-release.ts';
import { payoutDueFor } from '../../src/domain/settlement/payout-delay.ts';

const policy: ClassPolicy = { k: 4, maxDelayMs: 60_000, spreadMs: 2_000, minGapMs: 800 };
const NOW = 1_000_000;

const waitingArb = fc
  .array(fc.record({ cls: fc.integer({ min: 0, max: 4 }), age: fc.integer({ min: 0, max: 120_000 }) }), { maxLength: 40 })
  .map((xs) => xs.map((x, i): WaitingPayout => ({ id: `p${i}`, classKey: `c${x.cls}`, confirmedAt: NOW - x.age })));

describe('decideRelease', () => {
  it('releases a class only when k wait or its oldest reached the cap, and then the whole class', () => {
    fc.assert(
      fc.property(waitingArb, fc.integer({ min: 1, max: 6 }), (waiting, k) => {
        const p = { ...policy, k };
        const out = decideRelease(waiting, NOW, p, Math.random);
        const released = new Set(out.release.map((r) => r.id));
        assert.equal(released.size, out.release.length, 'each payout at most once');
        for (const key of new Set(waiting.map((w) => w.classKey))) {
          const members = waiting.filter((w) => w.classKey === key);
          const due = members.length >= k || members.some((m) => NOW - m.confirmedAt >= p.maxDelayMs);
          for (const m of members) assert.equal(released.has(m.id), due, `${key}: ${members.length} waiting`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('every payout is released by the cap, never before two slots after its deposit, within the spread', () => {
    fc.assert(
      fc.property(waitingArb, (waiting) => {
        const out = decideRelease(waiting, NOW, policy, Math.random);
        for (const w of waiting) if (NOW - w.confirmedAt >= policy.maxDelayMs) assert.ok(out.release.some((r) => r.id === w.id), `${w.id} past the cap`);
        for (const r of out.release) {
          const w = waiting.find((x) => x.id === r.id)!;
          assert.ok(r.at >= w.confirmedAt + policy.minGapMs);
          assert.ok(r.at <= Math.max(NOW + policy.spreadMs, w.confirmedAt + policy.minGapMs));
        }
        const open = waiting.filter((w) => !out.release.some((r) => r.id === w.id));
        const expected = open.length ? Math.min(...open.map((w) => w.confirmedAt)) + policy.maxDelayMs : null;
        // The earliest deadline is that of the class with the oldest waiting deposit.
        assert.equal(out.nextDeadline, expected);
      }),
      { numRuns: 500 },
    );
  });

  it('the sending order is independent of the arrival order', () => {
    const members = Array.from({ length: 4 }, (_, i): WaitingPayout => ({ id: `p${i}`, classKey: 'c', confirmedAt: NOW - 1000 * (4 - i) }));
    const first = new Map<string, number>();
    const runs = 4000;
    for (let r = 0; r < runs; r++) {
      const out = decideRelease(members, NOW, policy, () => randomInt(2 ** 32) / 2 ** 32);
      first.set(out.release[0]!.id, (first.get(out.release[0]!.id) ?? 0) + 1);
    }
    // Each deposit, earliest or latest, is sent first about a quarter of the time.
    for (const m of members) assert.ok(Math.abs(first.get(m.id)! / runs - 0.25) < 0.04, `${m.id} first ${first.get(m.id)} of ${runs}`);
  });

  it('classes are the pair, the mode and the pinned amount', () => {
    const base = { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_out', pinnedAmount: 10_000_000n };
    assert.equal(classKey(base), classKey({ ...base }));
    for (const other of [{ mode: 'exact_in' }, { pinnedAmount: 20_000_000n }, { destinationAssetId: 'sol' }]) assert.notEqual(classKey({ ...base, ...other }), classKey(base));
    assert.throws(() => decideRelease([], NOW, { ...policy, k: 0 }, Math.random), RangeError);
  });
});

describe('expectedRelease', () => {
  it('waits less and releases more together as a class gets busier; never beyond the cap or k', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), fc.integer({ min: 1, max: 50 }), (a, b, k) => {
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const p = { k, maxDelayMs: 300_000 };
        const slow = expectedRelease(lo, p);
        const busy = expectedRelease(hi, p);
        assert.ok(busy.delaySeconds <= slow.delaySeconds + 1e-9);
        assert.ok(busy.batch >= slow.batch - 1e-9);
        for (const e of [slow, busy]) {
          assert.ok(e.delaySeconds >= 0 && e.delaySeconds <= 300);
          assert.ok(e.batch >= 1 && e.batch <= k);
        }
      }),
    );
    assert.deepEqual(expectedRelease(0, { k: 8, maxDelayMs: 300_000 }), { delaySeconds: 300, batch: 1 });
    assert.deepEqual(expectedRelease(1, { k: 8, maxDelayMs: 300_000 }), { delaySeconds: 7, batch: 8 });
  });
});

describe('payoutDueFor', () => {
  const p = { privacy: 'on' as const, delayS: { min: 5, max: 30 }, maxDelayS: 240, minGapMs: 800 };
  it('privacy on: a standard payout is due at its class cap plus the spread, a non-standard one after two slots only', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (from, r) => {
        const draw = (n: number) => Math.floor(r * n);
        const std = payoutDueFor(new Date(from), true, p, draw).getTime();
        assert.ok(std >= from + 240_000 + 5_000 && std <= from + 240_000 + 30_000);
        assert.equal(payoutDueFor(new Date(from), false, p, draw).getTime(), from + 800);
        const off = payoutDueFor(new Date(from), true, { ...p, privacy: 'off' }, draw).getTime();
        assert.ok(off >= from + 5_000 && off <= from + 30_000);
      }),
    );
    assert.equal(payoutDueFor(new Date(0), true, { ...p, privacy: 'off', delayS: { min: 0, max: 0 } }, () => 0).getTime(), 0);
  });

  it('a release starts its spread at the window minimum', () => {
    const members = Array.from({ length: 4 }, (_, i): WaitingPayout => ({ id: `p${i}`, classKey: 'c', confirmedAt: NOW - 10_000 }));
    const out = decideRelease(members, NOW, { ...policy, spreadFromMs: 5_000, spreadMs: 25_000 }, Math.random);
    assert.equal(out.release.length, 4);
    for (const r of out.release) assert.ok(r.at >= NOW + 5_000 && r.at <= NOW + 30_000);
  });

  it('the pinned amount is amountIn under exact_in and amountOut under exact_out', () => {
    assert.equal(pinnedAmount({ mode: 'exact_in', amountIn: 10n, amountOut: 9n }), 10n);
    assert.equal(pinnedAmount({ mode: 'exact_out', amountIn: 10n, amountOut: 9n }), 9n);
  });
});
