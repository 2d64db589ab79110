/**
 * Regressions caught (issue 56): a bench's headline figures compared with a recorded previous run, a small
 * JSON in the repository (bench/baselines/<bench>.json). The file changes only when asked (`-- --record`
 * or BENCH_RECORD=1), so a slower build cannot quietly become the new normal; a figure worse by more than
 * REGRESSION_SHARE than the recorded one prints a REGRESSION line. The machine is shared and noisy: a
 * REGRESSION line says "look", not "broken" (ratios within one run move least; see docs/performance.md).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Worse than the recorded figure by more than this share: a REGRESSION line. */
export const REGRESSION_SHARE = 0.1;

export interface Figure {
  /** Stable name, e.g. "pglite quote/bare ratio"; the JSON's key. */
  name: string;
  value: number;
  unit: string;
  /** Which way is better: throughput and ratios against a baseline go up, CPU and latency down. */
  better: 'higher' | 'lower';
}

export interface BaselineFile {
  recordedAt: string;
  note: string;
  figures: Record<string, { value: number; unit: string; better: 'higher' | 'lower' }>;
}

/** The change of a figure against its recorded value, and whether it is a regression. Pure (tested). */
export function compareFigure(f: Figure, recorded: BaselineFile['figures'][string] | undefined): { line: string; regression: boolean } {
  const shown = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
  if (!recorded) return { line: `${''.padEnd(11)}${f.name.padEnd(44)} ${shown(f.value).padStart(9)} ${f.unit}   (not in the baseline)`, regression: false };
  // Figures shown equal are unchanged (e.g. 0.00 RPC calls per order both times, whatever the third digit).
  const change = shown(f.value) === shown(recorded.value) ? 0 : recorded.value === 0 ? Infinity * Math.sign(f.value) : f.value / recorded.value - 1;
  const worse = f.better === 'higher' ? -change : change;
  const regression = worse > REGRESSION_SHARE;
  const pct = Number.isFinite(change) ? `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %` : 'from 0';
  const head = regression ? 'REGRESSION' : '';
  return {
    line: `${head.padEnd(11)}${f.name.padEnd(44)} ${shown(f.value).padStart(9)} ${f.unit}   was ${shown(recorded.value)} (${pct}${f.better === 'higher' ? ', higher is better' : ', lower is better'})`,
    regression,
  };
}

const BASELINES = join(dirname(fileURLToPath(import.meta.url)), '..', 'baselines');

/** Whether this run records its figures as the new baseline (deliberately: a flag or BENCH_RECORD=1). */
export function recording(): boolean {
  return process.argv.includes('--record') || process.env.BENCH_RECORD === '1';
}

/**
 * Prints each figure with its change against bench/baselines/<bench>.json and returns how many regressed;
 * with --record writes the figures as the new baseline instead (the note says under what conditions).
 */
export function reportAgainstBaseline(bench: string, figures: Figure[], note: string, print: (line: string) => void = console.log): number {
  const file = join(BASELINES, `${bench}.json`);
  const base = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BaselineFile) : null;
  print(`  against the recorded run${base ? ` of ${base.recordedAt} (bench/baselines/${bench}.json; ${base.note})` : ` (none yet: bench/baselines/${bench}.json; record one with -- --record)`}:`);
  let regressions = 0;
  for (const f of figures) {
    const { line, regression } = compareFigure(f, base?.figures[f.name]);
    if (regression) regressions++;
    print(`  ${line}`);
  }
  if (base) print(`  ${regressions} regression${regressions === 1 ? '' : 's'} of more than ${REGRESSION_SHARE * 100} % (figures from a shared machine move by about that from run to run: re-run before believing one)`);
  if (recording()) {
    mkdirSync(BASELINES, { recursive: true });
    const out: BaselineFile = { recordedAt: new Date().toISOString(), note, figures: Object.fromEntries(figures.map((f) => [f.name, { value: Number(f.value.toPrecision(4)), unit: f.unit, better: f.better }])) };
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    print(`  recorded as the new baseline: bench/baselines/${bench}.json`);
  }
  return regressions;
}
