/**
 * The fee grid as Hush's processes share it (src/domain/fee-grid-shared.ts): a fresh store starts at the market's
 * rung when no class window is open; a move is announced ahead, keeps the old rung for every class whose window
 * opened before it and takes effect once those have released; a gap in readings restarts the watch; and no
 * release ever has members quoted at two rungs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { GRID_RULE, gridRungFor } from '../../src/domain/fee-grid.ts';
import { firstGrid, GRID_ANNOUNCE_MS, GRID_READING_GAP_MS, quotedRung, stepSharedGrid, type OpenWindow, type SharedGrid } from '../../src/domain/fee-grid-shared.ts';

const MIN = 60_000;

describe('the shared fee grid', () => {
  test('a fresh store starts at the rung nearest the market when nothing is quoted, else at the configured price', () => {
    assert.equal(firstGrid(40_000n, 1_000n, 0, false).step, 32_000n);
    assert.equal(firstGrid(50_000n, 1_000n, 0, false).step, 64_000n);
    assert.equal(firstGrid(40_000n, 1_400n, 0, true).step, 2_000n, 'the rung the open windows were quoted at with no row: the one covering the configured price');
    assert.equal(firstGrid(40_000n, 1_000n, 0, true).step, 1_000n);
    assert.equal(quotedRung(null, 1_000n, 0, null), 1_000n, 'no row yet: the configured price\'s rung');
  });

  test('a sustained market above the rung is announced, keeps the old rung for windows opened before, and takes effect once they released', () => {
    let g: SharedGrid = firstGrid(1_000n, 1_000n, 0, false);
    const open: OpenWindow[] = [{ key: 'usdc>usdc:exact_in:1000000', openedAt: 30_000, endsAt: 20 * MIN }];
    for (let t = 10_000; t < GRID_RULE.upAfterMs; t += 10_000) {
      const r = stepSharedGrid(g, 5_000n, t, open);
      assert.equal(r.moved, null, 'not before the market stayed above for the up delay');
      g = r.grid;
    }
    const decided = stepSharedGrid(g, 5_000n, GRID_RULE.upAfterMs + 10_000, open);
    assert.equal(decided.moved, 'decided');
    g = decided.grid;
    const p = g.pending!;
    assert.deepEqual([p.from, p.to, p.decidedAt], [1_000n, 4_000n, GRID_RULE.upAfterMs + 10_000 + GRID_ANNOUNCE_MS]);
    assert.equal(p.effectiveAt, 20 * MIN, 'expected once the open window ends');
    const now = p.decidedAt + 1;
    assert.equal(quotedRung(g, 1_000n, p.decidedAt - 1, null), 1_000n, 'before its decision everyone quotes the old rung');
    assert.equal(quotedRung(g, 1_000n, now, 30_000), 1_000n, 'a window opened before keeps the old rung');
    assert.equal(quotedRung(g, 1_000n, now, null), 4_000n, 'a class with no open window gets the new one');
    assert.equal(quotedRung(g, 1_000n, now, p.decidedAt + 5), 4_000n, 'a window opened since gets the new one');
    assert.equal(stepSharedGrid(g, 5_000n, now, open).moved, null, 'waits while the old window is open');
    const done = stepSharedGrid(g, 5_000n, now + 1, []);
    assert.equal(done.moved, 'effective', 'the old window released: in effect');
    assert.equal(done.grid.step, 4_000n);
    assert.equal(quotedRung(done.grid, 1_000n, now + 2, 30_000), 4_000n);
  });

  test('readings further apart than the gap start the watch again (an idle Hush does not step on two readings)', () => {
    let g: SharedGrid = firstGrid(1_000n, 1_000n, 0, false);
    g = stepSharedGrid(g, 5_000n, 1_000, []).grid;
    const later = stepSharedGrid(g, 5_000n, 1_000 + GRID_READING_GAP_MS + GRID_RULE.upAfterMs, []);
    assert.equal(later.moved, null);
    assert.equal(later.grid.above?.since, 1_000 + GRID_READING_GAP_MS + GRID_RULE.upAfterMs);
    assert.equal(later.grid.above?.ms, 0, 'the time between the two readings is not weighed');
  });

  test('any history of readings and windows: every release has members quoted at one rung', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ price: fc.bigInt({ min: 0n, max: 100_000n }), readings: fc.integer({ min: 1, max: 90 }), quoteEvery: fc.integer({ min: 1, max: 60 }) }), { minLength: 1, maxLength: 12 }), (spells) => {
        // Spells of a steady market (the grid moves only on those), quotes of the class every few readings.
        const readings = spells.flatMap((s) => Array.from({ length: s.readings }, (_, j) => ({ price: s.price, quote: j % s.quoteEvery === 0 })));
        let moves = 0;
        // One class, its window opened by its first quote and released 25 min later; a reading every 10 s.
        let g: SharedGrid = firstGrid(1_000n, 1_000n, 0, false);
        let window: { openedAt: number; rungs: Set<bigint> } | null = null;
        for (const [i, r] of readings.entries()) {
          const now = (i + 1) * 10_000;
          if (window && now - window.openedAt > 25 * MIN) {
            assert.ok(window.rungs.size <= 1, `a release quoted at ${[...window.rungs].join(' and ')}`);
            window = null;
          }
          if (r.quote) {
            window ??= { openedAt: now, rungs: new Set() };
            window.rungs.add(quotedRung(g, 1_000n, now, window.openedAt));
          }
          const open = window ? [{ key: 'c', openedAt: window.openedAt, endsAt: window.openedAt + 25 * MIN }] : [];
          const stepped = stepSharedGrid(g, r.price, now, open);
          if (stepped.moved === 'effective') moves++;
          g = stepped.grid;
          assert.ok(g.step === gridRungFor(g.step), 'always a rung');
        }
        return moves >= 0;
      }),
      { numRuns: 200 },
    );
  });
});
