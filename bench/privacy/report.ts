/** Prints bench:privacy's table, runs its self-checks, and writes docs/privacy.md's table and chart. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { BenchPolicy, Horizon, RunResult } from './run.ts';
import type { RowScore } from './score.ts';
import { linkedWithError, PROMISE_TARGET, promiseLine } from './row-lines.ts';
import { shapedTargets } from './shaped-report.ts';
import { bandsLine } from './release-sizes.ts';

export interface RateResult {
  rate: number;
  compression: number;
  /** Real seconds of warm-up, scored arrivals and padding after them. */
  horizonS?: Horizon;
  run: RunResult;
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const num = (x: number) => (Number.isFinite(x) ? (x >= 10 ? x.toFixed(0) : x.toFixed(1)) : '–');
const LAMPORTS_PER_SOL = 1e9;

export function tableRows(results: RateResult[]): string[][] {
  const header = ['workload', 'λ /s', 'λ·D', 'orders', 'quoted set', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'best links', 'set p10', 'set median', 'delay p50 s', 'delay p95 s', 'cost SOL/order'];
  const rows = results.flatMap(({ run }) =>
    run.rows.map((r: RowScore) => [
      r.label,
      String(r.rate),
      num(r.lambdaD),
      `${r.completed}/${r.orders}`,
      num(r.quotedSetMedian),
      r.a1Links === r.a1Correct ? String(r.a1Links) : `${r.a1Correct} (+${r.a1Links - r.a1Correct} false)`,
      pct(r.accuracy.A2),
      pct(r.accuracy.A3),
      pct(r.accuracy.A4),
      pct(r.accuracy.A5),
      pct(r.accuracy.A6),
      `${pct(r.linked)} (${r.best})`,
      num(r.setP10),
      num(r.setMedian),
      num(r.delayP50S),
      num(r.delayP95S),
      (r.costLamports / LAMPORTS_PER_SOL).toFixed(6),
    ]),
  );
  return [header, ...rows];
}

export function printTable(results: RateResult[], off?: RunResult): void {
  const rows = tableRows(off ? [...results, { rate: 0, compression: 4, run: off }] : results);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((x, c) => x.padEnd(widths[c]!)).join('  '));
  for (const { rate, compression, run } of results) {
    console.log(`λ=${rate}: compression ×${compression}, ${run.wallSeconds.toFixed(0)} s, ${run.rows.map((r) => r.padding).reduce((a, b) => a + b, 0)} warm-up and padding orders observed not scored, ${run.failedOrders} failed orders, ${run.unswept} deposits never swept, adversary read the chain in ${run.rpcRequests} RPC requests`);
  }
}

/**
 * The set a row's measurement supports: the best adversary's median posterior set, but never more than its
 * links leave (linked 4 % is a 1-in-25 guess whatever the posterior's width). An adversary that links best
 * with a diffuse posterior (A2, amounts alone, in the swap mix: a median set of 97 while it links 1 in 25)
 * would otherwise make a quote of 97 look right, a claim the links refute (docs/privacy.md, the quote).
 */
export function measuredSet(r: Pick<RowScore, 'setMedian' | 'linked'>): number {
  return r.linked > 0 ? Math.min(r.setMedian, 1 / r.linked) : r.setMedian;
}

/**
 * Issue 34's and 41's targets, one PASS/MISS line each; rows not run say so. `ceilingS`, the run's
 * HUSH_PRIVACY_MAX_WAIT_S, is named in the patient row's line: its ideal depends on it (docs/privacy.md).
 */
export function targets(results: RateResult[], ceilingS?: number): string[] {
  const rows = results.flatMap(({ run }) => run.rows);
  const out: string[] = [];
  const line = (ok: boolean | null, what: string, got: string) => out.push(`${ok === null ? 'N/A ' : ok ? 'PASS' : 'MISS'}  ${what}: ${got}`);
  const a1 = rows.filter((r) => r.a1Correct > 0);
  line(rows.length > 0 ? a1.length === 0 : null, 'A1 links 0 in every row', a1.length === 0 ? `0 in all ${rows.length} rows` : a1.map((r) => `${r.row} λ=${r.rate}: ${r.a1Correct}`).join(', '));
  const check = (ids: string[], rate: number, maxLinked: number, minP10: number | null, maxP95: number) => {
    for (const id of ids) {
      const r = rows.find((x) => x.row === id && x.rate === rate);
      const what = `${id} at λ=${rate}/s: linked ≤ ${pct(maxLinked)}${minP10 ? `, set p10 ≥ ${minP10}` : ''}, delay p95 ≤ ${maxP95 / 60} min`;
      if (!r) {
        line(null, what, 'not run');
        continue;
      }
      const ok = r.linked <= maxLinked && (minP10 === null || r.setP10 >= minP10) && r.delayP95S <= maxP95;
      line(ok, what, `linked ${linkedWithError(r)} (${r.best}), set p10 ${num(r.setP10)}, delay p95 ${num(r.delayP95S)} s`);
    }
  };
  check(['std-out', 'std-in', 'swap'], 1, 0.05, 10, 600);
  check(['std-out', 'std-in', 'swap'], 0.2, 0.1, null, 900);
  for (const r of rows.filter((x) => x.rate === 0.05 && ['std-out', 'std-in', 'swap'].includes(x.row))) {
    out.push(`info  ${r.row} at λ=0.05/s (reported, not judged): linked ${linkedWithError(r)} (${r.best}), set p10 ${num(r.setP10)}, delay p95 ${num(r.delayP95S)} s`);
  }
  const patient = rows.find((x) => x.row === 'patient-20' && x.rate === 0.05);
  line(patient ? patient.linked <= 0.06 : null, `patient-20 at λ=0.05/s (every order minAnonymitySet 20${ceilingS ? `, ceiling ${ceilingS} s` : ''}): linked ≤ 6 %`, patient ? `linked ${linkedWithError(patient)} (${patient.best}), delay p50 ${num(patient.delayP50S)} s, p95 ${num(patient.delayP95S)} s` : 'not run');
  const mixed = rows.find((x) => x.row === 'mixed-default' && x.rate === 0.2);
  const alone = rows.find((x) => x.row === 'std-out' && x.rate === 0.2);
  // Two rows of the same traffic measure equal only within their errors: "no worse" is judged as not
  // worse by more than one standard error of the difference (docs/decisions.md), the margin printed.
  const margin = mixed && alone ? Math.hypot(mixed.linkedSE, alone.linkedSE) : 0;
  line(
    mixed && alone ? mixed.linked <= alone.linked + margin : null,
    'mixed at λ=0.2/s (a third minAnonymitySet 30): its default orders linked no worse than the default-only std-out row (within one standard error of the difference)',
    mixed && alone ? `default orders of mixed ${linkedWithError(mixed)} (delay p95 ${num(mixed.delayP95S)} s), std-out ${linkedWithError(alone)} (delay p95 ${num(alone.delayP95S)} s): a difference of ${(100 * (mixed.linked - alone.linked)).toFixed(1)} ± ${(100 * margin).toFixed(1)} points` : 'not run',
  );
  const quotedRows = rows.filter((r) => ['free', 'std-out', 'std-in', 'swap'].includes(r.row));
  for (const r of quotedRows) {
    const measured = measuredSet(r);
    // The central estimate (anonymitySetLikely) is the one held to the measured set; anonymitySet is a promise at 4 in 5 (below).
    const ratio = r.quotedLikelyMedian / measured;
    line(
      Number.isFinite(ratio) ? ratio <= 2 && ratio >= 0.5 : false,
      `${r.row} at λ=${r.rate}/s: quoted anonymitySetLikely within ×2 of the measured set`,
      `likely ${num(r.quotedLikelyMedian)} (promised ${num(r.quotedSetMedian)}), measured ${num(measured)} (the best adversary's median set ${num(r.setMedian)}, its links 1 in ${num(1 / r.linked)})`,
    );
  }
  for (const r of rows.filter((x) => ['std-out', 'std-in', 'swap', 'patient-20', 'mixed'].includes(x.row))) {
    const p = promiseLine(r.promise);
    line(p.ok, `${r.row} at λ=${r.rate}/s: the quote's promise (anonymitySet at least, delivery within duration) holds ${PROMISE_TARGET * 100} % of the time`, p.text);
  }
  if (quotedRows.length === 0) line(null, 'quoted anonymitySet within ×2 of the measured set', 'not run');
  const checked = rows.reduce((a, r) => a + r.releasedChecked, 0);
  const mismatched = rows.flatMap((r) => r.releasedWithMismatches);
  line(checked > 0 ? mismatched.length === 0 : null, 'releasedWith equals the release the bench counts on the chain, every completed private order', checked === 0 ? 'no order released by class' : `${checked - mismatched.length} of ${checked} equal${mismatched.length ? `; e.g. ${mismatched.slice(0, 3).join('; ')}` : ''}`);
  // How much the best adversary gets beyond a 1-in-n guess within each release: the gap to the ideal bound.
  // Where that guess sits by release size (bench:privacy-bound --bench-span prints the ideal's, band by band).
  for (const r of rows.filter((x) => x.releasedChecked > 0)) {
    out.push(`info  ${r.row} at λ=${r.rate}/s: linked ${(100 * r.linked).toFixed(1)} %, a 1-in-n guess within its releases ${(100 * r.releaseGuess).toFixed(1)} %${r.releaseBands ? `: ${bandsLine(r.releaseBands)}` : ''}`);
  }
  return out;
}

export function policyLine(p: BenchPolicy): string {
  const release = p.k === undefined ? `HUSH_PRIVACY_TARGET_SET=${p.targetSet}` : `HUSH_PRIVACY_K=${p.k}`;
  return `HUSH_DENOMINATIONS=${p.menu}, ${release}, HUSH_PRIVACY_MAX_DELAY_S=${p.budgetS}, HUSH_PAYOUT_DELAY_S=${p.windowS.min}-${p.windowS.max}, HUSH_PRIVACY_MAX_WAIT_S=${p.ceilingS}`;
}

export function printTargets(results: RateResult[], policy: BenchPolicy): void {
  console.log(`targets (policy: ${policyLine(policy)}; delays in real seconds):`);
  for (const l of targets(results, policy.ceilingS)) console.log(l);
}

/** Cold start: the private orders' p95 delay against twice the non-private ones' (none asked to wait). */
export function printColdStart(cold: RunResult): void {
  const std = cold.rows.find((r) => r.row === 'cold-std');
  const free = cold.rows.find((r) => r.row === 'cold-free');
  const ok = std && free ? std.completed === std.orders && std.delayP95S <= 2 * Math.max(free.delayP95S, 1) : null;
  console.log(
    `${ok === null ? 'N/A ' : ok ? 'PASS' : 'MISS'}  cold start, 5 default orders of one class on a fresh Hush: none held past 2 × the non-private latency: ` +
      (std && free ? `private delay p95 ${num(std.delayP95S)} s (p50 ${num(std.delayP50S)} s, ${std.completed} of ${std.orders} completed), non-private p95 ${num(free.delayP95S)} s` : 'not run'),
  );
}

/** The conditions under which the bench's figures mean nothing: each fails the run. */
export function selfChecks(results: RateResult[], off: RunResult): string[] {
  const failures: string[] = [];
  const offRow = off.rows[0];
  if (!offRow || offRow.accuracy.A3 < 0.95) failures.push(`with no wait (off the menu), A3 links ${offRow ? pct(offRow.accuracy.A3) : 'nothing'} (needs ≥ 95 %)`);
  for (const { run } of [...results, { run: off }]) {
    for (const r of run.rows) {
      // Against shuffled truth the best guess is right about once per row (1/n of n orders).
      if (r.completed >= 10 && r.shuffledHits > 3) failures.push(`${r.row} λ=${r.rate}: ${r.shuffledHits.toFixed(1)} hits against shuffled truth (expected about 1)`);
      if (r.completed < 0.9 * r.orders) failures.push(`${r.row} λ=${r.rate}: only ${r.completed} of ${r.orders} orders completed`);
      if (r.observed < 0.95) failures.push(`${r.row} λ=${r.rate}: the adversary found only ${pct(r.observed)} of the deposits and payouts`);
    }
  }
  return failures;
}

const DOC = 'docs/privacy.md';
const CHART = 'docs/privacy-chart.svg';
const BEGIN = '<!-- bench:privacy:table -->';
const END = '<!-- /bench:privacy:table -->';

/** Rewrites the table between the markers in docs/privacy.md and the chart beside it. */
export function writeDocs(results: RateResult[], off: RunResult, meta: { policy: BenchPolicy; seed: number; seconds: number; shaped?: RateResult[] }): void {
  const rows = tableRows([...results, ...(meta.shaped ?? []), { rate: 0, compression: 4, run: off }]);
  const md = [
    `| ${rows[0]!.join(' | ')} |`,
    `| ${rows[0]!.map(() => '---').join(' | ')} |`,
    ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`),
    '',
    `Policy ${policyLine(meta.policy)}; ` +
      `seed ${meta.seed}, ${new Date().toISOString().slice(0, 10)}, ${Math.round(meta.seconds / 60)} min on this machine; ` +
      results.map(({ rate, compression, horizonS }) => `λ=${rate} compressed ×${compression}${horizonS ? ` (${Math.round(horizonS.warmup)} s warm-up + ${Math.round(horizonS.scored)} s scored + ${Math.round(horizonS.padding)} s padding, real)` : ''}`).join(', ') +
      '; the last row is the self-check (amounts off the menu, paid at the floor).',
    '',
    'Targets (issue 34):',
    '',
    ...targets(results, meta.policy.ceilingS).map((l) => `    ${l}`),
    ...(meta.shaped?.length ? ['', 'Issue 51 (the shaped rows, each a Hush of its own):', '', ...shapedTargets(meta.shaped).map((l) => `    ${l}`)] : []),
  ].join('\n');
  const doc = readFileSync(DOC, 'utf8');
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOC} lacks the ${BEGIN} … ${END} markers`);
  writeFileSync(DOC, `${doc.slice(0, from + BEGIN.length)}\n${md}\n${doc.slice(to)}`);
  writeFileSync(CHART, chart(results));
}

const COLORS = ['#c0392b', '#e67e22', '#2980b9', '#27ae60', '#8e44ad', '#7f8c8d'];

/**
 * Two panels against λ·D (log scale): the share of orders the best adversary links, and the median
 * effective anonymity set. Plain SVG written here: a charting library for two line plots is not worth it.
 */
export function chart(results: RateResult[]): string {
  const rows = results.flatMap(({ run }) => run.rows);
  const workloads = [...new Set(rows.map((r) => r.label))];
  const xs = rows.map((r) => r.lambdaD).filter((x) => x > 0);
  const [x0, x1] = [Math.log10(Math.min(...xs) / 1.5), Math.log10(Math.max(...xs) * 1.5)];
  const maxSet = Math.max(2, ...rows.map((r) => r.setMedian).filter(Number.isFinite));
  const W = 360;
  const H = 240;
  const pad = { l: 50, r: 10, t: 30, b: 40 };
  const panel = (ox: number, title: string, y: (r: RowScore) => number, yTicks: [number, string][]) => {
    const px = (v: number) => ox + pad.l + ((Math.log10(v) - x0) / (x1 - x0)) * (W - pad.l - pad.r);
    const py = (v: number) => pad.t + (1 - v) * (H - pad.t - pad.b);
    const out = [`<text x="${ox + W / 2}" y="18" text-anchor="middle" font-weight="bold">${title}</text>`];
    out.push(`<rect x="${ox + pad.l}" y="${pad.t}" width="${W - pad.l - pad.r}" height="${H - pad.t - pad.b}" fill="none" stroke="#999"/>`);
    for (const [v, label] of yTicks) out.push(`<text x="${ox + pad.l - 4}" y="${py(v) + 4}" text-anchor="end">${label}</text><line x1="${ox + pad.l}" x2="${ox + W - pad.r}" y1="${py(v)}" y2="${py(v)}" stroke="#eee"/>`);
    for (let d = Math.ceil(x0); d <= Math.floor(x1); d++) out.push(`<text x="${px(10 ** d)}" y="${H - pad.b + 14}" text-anchor="middle">${10 ** d}</text>`);
    out.push(`<text x="${ox + W / 2 + pad.l / 2}" y="${H - 8}" text-anchor="middle">λ·D (arrivals per median delay)</text>`);
    workloads.forEach((w, i) => {
      const pts = rows.filter((r) => r.label === w && r.lambdaD > 0).sort((a, b) => a.lambdaD - b.lambdaD);
      const path = pts.map((r) => `${px(r.lambdaD).toFixed(1)},${py(y(r)).toFixed(1)}`).join(' ');
      out.push(`<polyline points="${path}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`);
      for (const r of pts) out.push(`<circle cx="${px(r.lambdaD).toFixed(1)}" cy="${py(y(r)).toFixed(1)}" r="3" fill="${COLORS[i % COLORS.length]}"/>`);
    });
    return out.join('');
  };
  const logSet = (v: number) => Math.log(Math.max(1, v)) / Math.log(maxSet);
  const setTicks: [number, string][] = [1, 2, 5, 10, 20, 50, 100, 200].filter((t) => t <= maxSet).map((t) => [logSet(t), String(t)]);
  const legend = workloads.map((w, i) => `<rect x="${20 + i * 120}" y="${H + 2}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${34 + i * 120}" y="${H + 11}">${w}</text>`).join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 20}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(0, 'orders linked by the best adversary', (r) => r.linked, [0, 0.25, 0.5, 0.75, 1].map((v) => [v, `${v * 100} %`])),
    panel(W, 'median effective anonymity set (2^H)', (r) => logSet(r.setMedian), setTicks),
    legend,
    '</svg>',
    '',
  ].join('\n');
}
