/**
 * Issue 56: bench:api's figures against the recorded run. A figure worse by more than 10 % than the
 * recorded one (lower throughput or ratio, higher CPU or latency) is a REGRESSION; better, or within 10 %,
 * is not; figures shown equal are unchanged.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareFigure, REGRESSION_SHARE } from '../../bench/support/baseline-compare.ts';

const rec = (value: number, better: 'higher' | 'lower') => ({ value, unit: 'x', better });

describe('bench baselines: a figure worse than the recorded run by more than 10 % is a regression', () => {
  test('a drop of more than 10 % in a higher-is-better figure is a REGRESSION line; 10 % or less is not', () => {
    assert.equal(REGRESSION_SHARE, 0.1);
    const worse = compareFigure({ name: 'pglite quote / bare', value: 0.4, unit: '×', better: 'higher' }, rec(0.5, 'higher'));
    assert.equal(worse.regression, true);
    assert.match(worse.line, /^REGRESSION/);
    assert.match(worse.line, /-20\.0 %/);
    assert.equal(compareFigure({ name: 'q', value: 0.46, unit: '×', better: 'higher' }, rec(0.5, 'higher')).regression, false);
    assert.equal(compareFigure({ name: 'q', value: 0.7, unit: '×', better: 'higher' }, rec(0.5, 'higher')).regression, false);
  });

  test('a rise of more than 10 % in a lower-is-better figure (CPU, latency) is a REGRESSION; a fall is not', () => {
    const cpu = compareFigure({ name: 'order cpu', value: 700, unit: 'µs', better: 'lower' }, rec(600, 'lower'));
    assert.equal(cpu.regression, true);
    assert.match(cpu.line, /\+16\.7 %/);
    assert.equal(compareFigure({ name: 'order cpu', value: 500, unit: 'µs', better: 'lower' }, rec(600, 'lower')).regression, false);
    assert.equal(compareFigure({ name: 'order cpu', value: 650, unit: 'µs', better: 'lower' }, rec(600, 'lower')).regression, false);
  });

  test('figures shown equal are unchanged; one not recorded is only shown; a rise from 0 of a lower-is-better figure is a REGRESSION', () => {
    const same = compareFigure({ name: 'rpc per order', value: 0.0012, unit: '/order', better: 'lower' }, rec(0.0031, 'lower'));
    assert.equal(same.regression, false);
    assert.match(same.line, /\+0\.0 %/);
    const fresh = compareFigure({ name: 'new figure', value: 3, unit: 'x', better: 'lower' }, undefined);
    assert.equal(fresh.regression, false);
    assert.match(fresh.line, /not in the baseline/);
    assert.equal(compareFigure({ name: 'rpc per order', value: 0.5, unit: '/order', better: 'lower' }, rec(0, 'lower')).regression, true);
  });
});
