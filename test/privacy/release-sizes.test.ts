/**
 * Where a row's 1-in-n guess sits by release size (bench/privacy/release-sizes.ts): what bench:privacy's rows
 * and bench:privacy-bound --bench-span are compared by (docs/privacy.md, "The λ = 1 gap to the ideal").
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { bandsLine, releaseSizeBands } from '../../bench/privacy/release-sizes.ts';
import { targets, type RateResult } from '../../bench/privacy/report.ts';
import type { RowScore } from '../../bench/privacy/score.ts';

it('splits the mean of 1/n by release size: its bands add up to the guess, and their shares to every order', () => {
  // 30 released together, 5 with each other, and one alone.
  const sizes = [...Array<number>(30).fill(30), ...Array<number>(5).fill(5), 1];
  const bands = releaseSizeBands(sizes, 30);
  assert.deepEqual(bands.map((b) => b.label), ['alone', '2–9', '10–29', '30+']);
  assert.deepEqual(bands.map((b) => Math.round(b.share * 36)), [1, 5, 0, 30]);
  assert.deepEqual(bands.map((b) => Number((b.points * 36).toFixed(6))), [1, 1, 0, 1]);
  const guess = sizes.reduce((a, n) => a + 1 / n, 0) / sizes.length;
  assert.ok(Math.abs(bands.reduce((a, b) => a + b.points, 0) - guess) < 1e-12);
  assert.equal(bandsLine(bands), 'alone 2.8 % of orders (2.78 points), 2–9 13.9 % (2.78), 10–29 0.0 % (0.00), 30+ 83.3 % (2.78)');
});

it('bands a small target without empty ranges', () => {
  assert.deepEqual(releaseSizeBands([1, 2, 8], 8).map((b) => b.label), ['alone', '2–7', '8+']);
  assert.deepEqual(releaseSizeBands([1, 2], 2).map((b) => b.label), ['alone', '2+']);
  assert.deepEqual(releaseSizeBands([1], 1).map((b) => [b.label, b.share]), [['alone', 1], ['2+', 0]]);
});

it("prints a row's bands beside its 1-in-n guess", () => {
  const row = {
    row: 'std-out', label: 'standard, exact_out', rate: 1, lambdaD: 150, orders: 2, completed: 2, observed: 1,
    accuracy: { A1: 0, A2: 0.04, A3: 0.01, A4: 0.05, A5: 0, A6: 0.02 }, a1Links: 0, a1Correct: 0, best: 'A4', linked: 0.05, linkedSE: 0.01,
    confidentLinks: 0, setP10: 30, setMedian: 30, delayP50S: 130, delayP95S: 330, costLamports: 1e6, shuffledHits: 1,
    quotedSetMedian: 26, quotedLikelyMedian: 30, padding: 0, releaseGuess: 0.5, releasedWithLate: 0, releasedWithExplained: 0, releasedWithMissing: 0, releasedWithMismatches: [], releasedChecked: 2,
    promise: { orders: 2, setKept: 1, waitKept: 1, byTag: {} }, releasedMedian: 15, releaseBands: releaseSizeBands([1, 30], 30), results: {},
  } satisfies RowScore & { results: unknown };
  const results: RateResult[] = [{ rate: 1, compression: 4, run: { rows: [row], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } }];
  const line = targets(results).find((l) => l.startsWith('info  std-out'))!;
  assert.equal(line, 'info  std-out at λ=1/s: linked 5.0 %, a 1-in-n guess within its releases 50.0 %: alone 50.0 % of orders (50.00 points), 2–9 0.0 % (0.00), 10–29 0.0 % (0.00), 30+ 50.0 % (1.67)');
});
