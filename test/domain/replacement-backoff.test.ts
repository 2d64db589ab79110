import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FREE_FAILURES, replacementDelayMs } from '../../src/domain/replacement-backoff.ts';

test('replaced at once after each of the first three failures, then the wait doubles from 30 s up to 1 h', () => {
  assert.equal(FREE_FAILURES, 3);
  assert.deepEqual(
    Array.from({ length: FREE_FAILURES + 10 }, (_, i) => replacementDelayMs(i)),
    [...Array(FREE_FAILURES + 1).fill(0), 30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000],
  );
});

test('never negative, never above 1 h, never shorter for more failures', () => {
  fc.assert(
    fc.property(fc.nat({ max: 1_000_000 }), (n) => {
      const d = replacementDelayMs(n);
      assert.ok(Number.isFinite(d) && d >= 0 && d <= 3_600_000);
      assert.ok(replacementDelayMs(n + 1) >= d);
    }),
  );
});
