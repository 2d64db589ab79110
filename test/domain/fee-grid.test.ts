import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FEE_GRID, GRID_RULE, gridMoveEffectiveAt, gridRungFor, movedGrid, observeGrid, rungForClass, startGrid, type GridState } from '../../src/domain/fee-grid.ts';

const MINUTE = 60_000;

/** Reads `estimates`, one a minute from `t0`, applying each move at once; the moves made, in order. */
function follow(start: bigint, estimates: readonly bigint[], t0 = 0): { moves: { at: number; to: bigint }[]; state: GridState } {
  let state = startGrid(start);
  const moves: { at: number; to: bigint }[] = [];
  estimates.forEach((e, i) => {
    const r = observeGrid(state, e, t0 + i * MINUTE);
    state = r.state;
    if (r.move !== null) {
      moves.push({ at: t0 + i * MINUTE, to: r.move });
      state = movedGrid(r.move);
    }
  });
  return { moves, state };
}

describe('the network fee on a grid', () => {
  test('the rungs are powers of two from 1,000; a price takes the lowest rung at or above it', () => {
    assert.deepEqual(FEE_GRID.slice(0, 4), [1_000n, 2_000n, 4_000n, 8_000n]);
    assert.equal(gridRungFor(0n), 1_000n);
    assert.equal(gridRungFor(2_000n), 2_000n);
    assert.equal(gridRungFor(2_001n), 4_000n);
    assert.equal(gridRungFor(10n ** 12n), FEE_GRID.at(-1));
  });

  test('steps up once the market has stayed above the rung for five minutes, to the rung of its lowest meanwhile', () => {
    const { moves } = follow(1_000n, [1_000n, 9_000n, 5_000n, 30_000n, 7_000n, 6_000n, 9_000n]);
    assert.deepEqual(moves, [{ at: 6 * MINUTE, to: 8_000n }]);
  });

  test('at the top rung a market above it moves nothing', () => {
    assert.deepEqual(follow(FEE_GRID.at(-1)!, Array(20).fill(FEE_GRID.at(-1)! * 4n)).moves, []);
  });

  test('a spike shorter than five minutes moves nothing', () => {
    assert.deepEqual(follow(1_000n, [1_000n, 50_000n, 50_000n, 50_000n, 50_000n, 900n, 50_000n, 50_000n]).moves, []);
  });

  test('steps down only after thirty minutes below the rung under it; between the two rungs it stays', () => {
    assert.deepEqual(follow(8_000n, Array(120).fill(5_000n)).moves, [], 'between 4,000 and 8,000: stays at 8,000');
    const { moves } = follow(8_000n, Array(40).fill(1_500n));
    assert.deepEqual(moves, [{ at: 30 * MINUTE, to: 2_000n }]);
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

  test('moves are rare: none within five minutes of the last, up only above the rung, down only below the one under it', () => {
    fc.assert(
      fc.property(fc.array(estimateArb, { maxLength: 240 }), estimateArb, (estimates, start) => {
        let state = startGrid(start);
        let lastMove = -Infinity;
        estimates.forEach((e, i) => {
          const now = i * MINUTE;
          const before = state.step;
          const r = observeGrid(state, e, now);
          state = r.state;
          if (r.move === null) return;
          assert.ok(now - lastMove >= GRID_RULE.upAfterMs, `moved again after ${(now - lastMove) / MINUTE} min`);
          assert.notEqual(r.move, before);
          if (r.move > before) assert.ok(e > before, 'up only while the market is above the rung');
          else assert.ok(FEE_GRID.indexOf(r.move) < FEE_GRID.indexOf(before) && e < FEE_GRID[FEE_GRID.indexOf(before) - 1]!, 'down only below the rung under it');
          lastMove = now;
          state = movedGrid(r.move);
        });
      }),
    );
  });

  test('a market that stays on one rung is followed there and then left alone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FEE_GRID.slice(1, -1)), estimateArb, (rung, start) => {
        const lower = FEE_GRID[FEE_GRID.indexOf(rung) - 1]!;
        const { state, moves } = follow(start, Array(90).fill(lower + 1n));
        assert.equal(state.step, rung);
        assert.ok(moves.length <= 1);
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
