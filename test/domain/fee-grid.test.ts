import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FEE_GRID, GRID_RULE, gridMoveEffectiveAt, gridRungFor, gridRungNearest, movedGrid, observeGrid, rungForClass, startGrid, type GridState } from '../../src/domain/fee-grid.ts';

const MINUTE = 60_000;
const S = 1_000;

/** Reads `estimates`, one every `everyMs` from 0, applying each move at once; the moves made, in order. */
function follow(start: bigint, estimates: readonly bigint[], everyMs = MINUTE): { moves: { at: number; to: bigint }[]; state: GridState } {
  return followAt(start, estimates.map((price, i) => ({ at: i * everyMs, price })));
}

function followAt(start: bigint, readings: readonly { at: number; price: bigint }[]): { moves: { at: number; to: bigint }[]; state: GridState } {
  let state = startGrid(start);
  const moves: { at: number; to: bigint }[] = [];
  for (const { at, price } of readings) {
    const r = observeGrid(state, price, at);
    state = r.state;
    if (r.move !== null) {
      moves.push({ at, to: r.move });
      state = movedGrid(r.move);
    }
  }
  return { moves, state };
}

/** A market read every 10 s for `minutes`: 500 (a calm slot's floor) but for 30-s bursts at `burst`, every `everyS` seconds (null: once, at the start). */
function bursty(minutes: number, burst: bigint, everyS: number | null): bigint[] {
  return Array.from({ length: (minutes * 60) / 10 }, (_, i) => ((everyS !== null ? (i * 10) % everyS < 30 : i < 3) ? burst : 500n));
}

describe('the network fee on a grid', () => {
  test('the rungs are powers of two from 1,000; a price is covered by the lowest rung at or above it', () => {
    assert.deepEqual(FEE_GRID.slice(0, 4), [1_000n, 2_000n, 4_000n, 8_000n]);
    assert.equal(gridRungFor(0n), 1_000n);
    assert.equal(gridRungFor(2_000n), 2_000n);
    assert.equal(gridRungFor(2_001n), 4_000n);
    assert.equal(gridRungFor(10n ** 12n), FEE_GRID.at(-1));
  });

  test('a mean is charged at the rung nearest it in lamports, a tie going up', () => {
    assert.equal(gridRungNearest(0n), 1_000n);
    assert.equal(gridRungNearest(1_499n), 1_000n);
    assert.equal(gridRungNearest(1_500n), 2_000n);
    assert.equal(gridRungNearest(5_999n), 4_000n);
    assert.equal(gridRungNearest(6_000n), 8_000n);
    assert.equal(gridRungNearest(18_580n), 16_000n, "a spike cycle's mean price (docs/performance.md): not the 32,000 covering it");
    assert.equal(gridRungNearest(10n ** 12n), FEE_GRID.at(-1));
  });

  test('steps up once its mean has called for a higher rung for five minutes, to the rung nearest that mean', () => {
    const { moves } = follow(1_000n, [1_000n, 20_000n, 10_000n, 30_000n, 12_000n, 14_000n, 20_000n, 20_000n]);
    // From minute 1: intervals at 15, 20, 21, 13 and 17 thousand, a mean of 17,200: nearest 16,000 (the lowest, 10,000, is covered by 16,000 too).
    assert.deepEqual(moves, [{ at: 6 * MINUTE, to: 16_000n }]);
    assert.deepEqual(follow(1_000n, [1_000n, 20_000n, 10_000n, 30_000n, 12_000n, 14_000n]).moves, [], 'not before the five minutes');
  });

  test('bursts count by what they cost: a burst every two minutes steps the rung up, the same burst alone does not', () => {
    // A 30-s burst at 60,000 in every 2 minutes of 500s: a rule on the lowest reading (500) would never step.
    assert.deepEqual(follow(1_000n, bursty(12, 60_000n, 120), 10 * S).moves, [{ at: 5 * MINUTE, to: 16_000n }], 'a mean of about 15,400');
    assert.deepEqual(follow(1_000n, bursty(40, 60_000n, null), 10 * S).moves, [], 'its cost falls in the first half of the wait: nothing moves');
  });

  test('the mean is over time, not over readings: a cadence that thickens in a burst weighs nothing', () => {
    // 30,000 for two minutes read every 10 s, then 10,000 read every minute: over time a mean of 20,000 (rung
    // 16,000); counted per reading, 26,250 (rung 32,000).
    const readings = [...Array.from({ length: 13 }, (_, i) => ({ at: i * 10 * S, price: 30_000n })), ...[180, 240, 300].map((s) => ({ at: s * S, price: 10_000n }))];
    assert.deepEqual(followAt(1_000n, readings).moves, [{ at: 5 * MINUTE, to: 16_000n }]);
  });

  test('a reading above the top rung counts as the top; at the top a market above it moves nothing', () => {
    assert.deepEqual(follow(FEE_GRID.at(-2)!, Array(7).fill(10n ** 15n)).moves, [{ at: 5 * MINUTE, to: FEE_GRID.at(-1)! }]);
    assert.deepEqual(follow(FEE_GRID.at(-1)!, Array(20).fill(FEE_GRID.at(-1)! * 4n)).moves, []);
  });

  test('a rise whose mean falls back under the midpoint within five minutes moves nothing', () => {
    assert.deepEqual(follow(1_000n, [1_000n, 3_000n, 1_000n, 1_000n, 1_000n, 1_000n, 1_000n, 1_000n]).moves, []);
  });

  test('steps down only after thirty minutes; a market nearer the rung than the one under it stays', () => {
    assert.deepEqual(follow(8_000n, Array(120).fill(6_500n)).moves, [], 'nearer 8,000 than 4,000: stays');
    assert.deepEqual(follow(8_000n, Array(40).fill(1_500n)).moves, [{ at: 30 * MINUTE, to: 2_000n }]);
    assert.deepEqual(follow(16_000n, bursty(40, 60_000n, 120), 10 * S).moves, [], 'the bursty market above stays at its rung');
  });

  test('a move takes effect once every class window open at its decision has ended', () => {
    assert.equal(gridMoveEffectiveAt(1_000, []), 1_000);
    assert.equal(gridMoveEffectiveAt(1_000, [500, 4_000, 2_500]), 4_000);
  });

  test('while a move is pending a class keeps the rung its window opened with', () => {
    const pending = { from: 2_000n, to: 4_000n, decidedAt: 10_000 };
    assert.equal(rungForClass(null, 2_000n, 5_000), 2_000n);
    assert.equal(rungForClass(pending, 2_000n, 9_999), 2_000n, 'opened before the decision');
    assert.equal(rungForClass(pending, 2_000n, 10_000), 4_000n, 'opened at or after it');
    assert.equal(rungForClass(pending, 2_000n, null), 4_000n, 'no window open: a new one starts at the new rung');
  });
});

describe('properties', () => {
  const estimateArb = fc.bigInt({ min: 0n, max: 5_000_000n });

  test('the rung covers the price, and the rung under it does not (within the grid)', () => {
    fc.assert(
      fc.property(estimateArb, (p) => {
        const rung = gridRungFor(p);
        assert.ok(FEE_GRID.includes(rung));
        if (p <= FEE_GRID.at(-1)!) assert.ok(rung >= p);
        const i = FEE_GRID.indexOf(rung);
        if (i > 0) assert.ok(FEE_GRID[i - 1]! < p);
      }),
    );
  });

  test('the nearest rung is no further from the price than any other rung', () => {
    fc.assert(
      fc.property(estimateArb, (p) => {
        const dist = (r: bigint) => (r > p ? r - p : p - r);
        const rung = gridRungNearest(p);
        assert.ok(FEE_GRID.every((r) => dist(rung) <= dist(r)));
      }),
    );
  });

  test('moves are rare and go toward the market: up five minutes after the last move at the soonest, down thirty, to a rung between those nearest the lowest and highest reading since', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(estimateArb, fc.integer({ min: 1, max: 12 })), { maxLength: 120 }), estimateArb, (spells, start) => {
        // Spells of a steady market, a reading every minute.
        const estimates = spells.flatMap(([p, n]) => Array<bigint>(n).fill(p));
        let state = startGrid(start);
        let lastMove = 0;
        let seen: bigint[] = [];
        estimates.forEach((e, i) => {
          const now = i * MINUTE;
          const before = state.step;
          const r = observeGrid(state, e, now);
          state = r.state;
          seen.push(e > FEE_GRID.at(-1)! ? FEE_GRID.at(-1)! : e);
          if (r.move === null) return;
          assert.notEqual(r.move, before);
          const wait = r.move > before ? GRID_RULE.upAfterMs : GRID_RULE.downAfterMs;
          assert.ok(now - lastMove >= wait, `moved ${r.move > before ? 'up' : 'down'} ${(now - lastMove) / MINUTE} min after the last`);
          const [low, high] = [seen.reduce((a, b) => (a < b ? a : b)), seen.reduce((a, b) => (a > b ? a : b))];
          assert.ok(r.move >= gridRungNearest(low) && r.move <= gridRungNearest(high), `moved to ${r.move} with readings ${low}..${high}`);
          lastMove = now;
          seen = [];
          state = movedGrid(r.move);
        });
      }),
    );
  });

  test('a steady market is followed to its nearest rung within the down wait and then left alone', () => {
    fc.assert(
      fc.property(estimateArb, estimateArb, (price, start) => {
        const { state, moves } = follow(start, Array(90).fill(price));
        assert.equal(state.step, gridRungNearest(price));
        assert.ok(moves.length <= 1);
        if (moves.length) assert.ok(moves[0]!.at <= GRID_RULE.downAfterMs);
      }),
    );
  });

  test('a move never takes effect before its decision, nor inside a window open at it', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(fc.nat()), (decidedAt, ends) => {
        const at = gridMoveEffectiveAt(decidedAt, ends);
        assert.ok(at >= decidedAt && ends.every((e) => at >= e));
        assert.ok(at === decidedAt || ends.includes(at));
      }),
    );
  });
});
