/**
 * bench:privacy's judgement of the quote: the measured set it is held to is never wider than the best
 * adversary's links allow (docs/privacy.md, "The quote's set").
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { measuredSet, targets, type RateResult } from '../../bench/privacy/report.ts';
import { linkedWithError } from '../../bench/privacy/row-lines.ts';
import type { RowScore } from '../../bench/privacy/score.ts';

function row(over: Partial<RowScore>): RowScore & { results: unknown } {
  const base: RowScore = {
    row: 'swap', label: 'swap mix', rate: 1, lambdaD: 150, orders: 456, completed: 456, observed: 1,
    accuracy: { A1: 0, A2: 0.04, A3: 0.01, A4: 0.02, A5: 0, A6: 0.02 }, a1Links: 0, a1Correct: 0, best: 'A2', linked: 0.04, linkedSE: 0.01,
    confidentLinks: 0, setP10: 47, setMedian: 97, delayP50S: 158, delayP95S: 349, costLamports: 1e6, shuffledHits: 1,
    quotedSetMedian: 26, quotedLikelyMedian: 30, padding: 0, releaseGuess: 0.033, releasedWithMismatches: [], releasedChecked: 456,
    promise: { orders: 456, setKept: 0.9, waitKept: 0.85, byTag: {} }, releasedMedian: 30, releasedWithLate: 0, releasedWithExplained: 0, releasedWithMissing: 0,
  };
  return { ...base, ...over, results: {} };
}

const judged = (r: RowScore & { results: unknown }): string => {
  const results: RateResult[] = [{ rate: r.rate, compression: 4, run: { rows: [r], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } }];
  return targets(results).find((l) => l.includes('quoted anonymitySetLikely'))!;
};

it('holds the quote to the smaller of the posterior median set and the links’ 1 in n', () => {
  assert.equal(measuredSet({ setMedian: 97, linked: 0.04 }), 25);
  assert.equal(measuredSet({ setMedian: 8, linked: 0.05 }), 8);
  // No link at all: the links bound nothing, the posterior says what there is.
  assert.equal(measuredSet({ setMedian: 31, linked: 0 }), 31);
});

it('passes a likely set of 30 for the swap mix measured at 97 with links 1 in 25, and fails a likely 97 there', () => {
  assert.match(judged(row({})), /^PASS .*likely 30 \(promised 26\), measured 25 \(the best adversary's median set 97, its links 1 in 25\)/);
  assert.match(judged(row({ quotedLikelyMedian: 97 })), /^MISS /);
  // Too modest is judged the same way: a likely set of 10 against a measured 25.
  assert.match(judged(row({ quotedLikelyMedian: 10 })), /^MISS /);
});

it('judges the quote as a promise: the set at least and the delivery within its duration, each for 80 % of the orders', () => {
  const promise = (setKept: number, waitKept: number) =>
    targets([{ rate: 1, compression: 4, run: { rows: [row({ row: 'std-out', promise: { orders: 100, setKept, waitKept, byTag: {} } })], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } }]).find((l) => l.includes('the quote\'s promise'))!;
  assert.match(promise(0.9, 0.8), /^PASS .*set kept for 90 %, wait kept for 80 % of 100 orders/);
  assert.match(promise(0.79, 0.95), /^MISS /);
  assert.match(promise(0.95, 0.7), /^MISS /);
});

it('prints a row’s linked share with one standard error of it, so a run’s verdict shows how near the bound it fell', () => {
  assert.equal(linkedWithError({ linked: 0.04, linkedSE: 0.0098 }), '4.0 ± 1.0 %');
  assert.equal(linkedWithError({ linked: 0, linkedSE: 0 }), '0.0 ± 0.0 %');
  const line = targets([{ rate: 1, compression: 4, run: { rows: [row({ row: 'std-out', linked: 0.055, linkedSE: 0.004, completed: 460, setP10: 30 })], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } }]).find((l) => l.includes('std-out at λ=1/s'))!;
  assert.match(line, /^MISS .*linked 5\.5 ± 0\.4 % \(A2\)/);
});

it('judges the mixed row\'s default orders no worse than the default-only row within one standard error of the difference', () => {
  const mixedLine = (mixed: number, alone: number) =>
    targets([
      { rate: 0.2, compression: 16, run: { rows: [row({ row: 'mixed-default', rate: 0.2, linked: mixed, linkedSE: 0.012 }), row({ row: 'std-out', rate: 0.2, linked: alone, linkedSE: 0.016 })], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } },
    ]).find((l) => l.includes('mixed at'))!;
  // 0.1 point apart with errors of 1.2 and 1.6: equal as far as the run can tell.
  assert.match(mixedLine(0.071, 0.07), /^PASS .*a difference of 0\.1 ± 2\.0 points/);
  // Better is better.
  assert.match(mixedLine(0.05, 0.07), /^PASS /);
  // Worse by more than the difference's error (2.0 points): a miss.
  assert.match(mixedLine(0.095, 0.07), /^MISS .*a difference of 2\.5 ± 2\.0 points/);
});

it('names the ceiling the patient row ran at, since what a set of 20 can reach depends on it', () => {
  const patient = (ceilingS?: number) =>
    targets([{ rate: 0.05, compression: 16, run: { rows: [row({ row: 'patient-20', rate: 0.05, linked: 0.058, linkedSE: 0.01 })], failedOrders: 0, unswept: 0, wallSeconds: 1, rpcRequests: 1, ownDelaysS: [] } }], ceilingS).find((l) => l.includes('patient-20 at'))!;
  assert.match(patient(21_600), /^PASS {2}patient-20 at λ=0\.05\/s \(every order minAnonymitySet 20, ceiling 21600 s\): linked ≤ 6 %: linked 5\.8 ± 1\.0 %/);
  assert.match(patient(), /\(every order minAnonymitySet 20\): linked ≤ 6 %/);
});
