/** Issue 51's shaped rows (workloads.ts, shapedWorkloads): their PASS/MISS lines. */
import { linkedWithError, PROMISE_TARGET, promiseLine } from './row-lines.ts';
import type { RowScore } from './score.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '–');
const num = (x: number) => (Number.isFinite(x) ? (x >= 10 ? x.toFixed(0) : x.toFixed(1)) : '–');

/** The shaped rows' PASS/MISS lines, from their runs (each run's scored rows). */
export function shapedTargets(results: { run: { rows: RowScore[] } }[]): string[] {
  const rows = results.flatMap(({ run }) => run.rows);
  const out: string[] = [];
  const line = (ok: boolean | null, what: string, got: string) => out.push(`${ok === null ? 'N/A ' : ok ? 'PASS' : 'MISS'}  ${what}: ${got}`);
  const row = (id: string): RowScore | undefined => rows.find((r) => r.row === id);
  const crowd = row('cold-crowd');
  if (crowd) {
    line(crowd.linked <= 0.1 && crowd.releasedMedian >= 15, 'cold crowd (a fresh Hush, 2/s of three classes for 60 s): linked ≤ 10 %, release median ≥ 15', `linked ${linkedWithError(crowd)} (${crowd.best}), releasedWith median ${num(crowd.releasedMedian)}, delay p50 ${num(crowd.delayP50S)} s, p95 ${num(crowd.delayP95S)} s, ${crowd.completed}/${crowd.orders} completed`);
    const p = promiseLine(crowd.promise);
    line(p.ok, `cold crowd: the quote's promise holds ${pct(PROMISE_TARGET)} of the time`, `${p.text} (quoted ${num(crowd.quotedSetMedian)}, likely ${num(crowd.quotedLikelyMedian)})`);
  }
  const partners = row('cold-crowd-partners');
  if (partners) {
    const what = 'cold crowd of partners (a fresh Hush, 96 at 2/s, 3 partners, both modes, round USDC as suggested)';
    const figures = `releasedWith median ${num(partners.releasedMedian)}, delay p50 ${num(partners.delayP50S)} s, p95 ${num(partners.delayP95S)} s (quoted ${num(partners.quotedSetMedian)}), ${partners.completed}/${partners.orders} completed`;
    line(partners.linked <= 0.08, `${what}: linked ≤ 8 %`, `linked ${linkedWithError(partners)} (${partners.best}), ${figures}`);
    line(partners.releasedMedian >= 15, `${what}: releasedWith median ≥ 15`, figures);
    line(
      partners.releasedWithLate === partners.releasedWithExplained && partners.releasedWithMissing === 0,
      `${what}: every completed order's status has releasedWith when it shows completed, or says why not`,
      `${partners.releasedWithLate} lacked it at the first read showing completed (reads a second apart; ${partners.releasedWithExplained} of them said why: release_landing), ${partners.releasedWithMissing} when read final, of ${partners.completed}`,
    );
  }
  const burst = row('burst-silence');
  if (burst) {
    const p = promiseLine(burst.promise);
    line(p.ok, `burst then silence (20 in 30 s, then one every 10 min): the singles' quotes hold ${pct(PROMISE_TARGET)} of the time`, `${p.text} (quoted ${num(burst.quotedSetMedian)}, likely ${num(burst.quotedLikelyMedian)}; releasedWith median ${num(burst.releasedMedian)}, delay p50 ${num(burst.delayP50S)} s, p95 ${num(burst.delayP95S)} s)`);
  }
  const cycle = row('daily-cycle');
  if (cycle) {
    line(cycle.linked <= 0.1 && cycle.delayP95S <= 900, 'daily cycle (λ 0.2 on average, ×10 peak to trough): linked ≤ 10 %, delay p95 ≤ 15 min', `linked ${linkedWithError(cycle)} (${cycle.best}), set p10 ${num(cycle.setP10)}, delay p95 ${num(cycle.delayP95S)} s`);
    for (const tag of ['trough', 'peak']) {
      const p = promiseLine(cycle.promise.byTag[tag]);
      line(p.ok, `daily cycle at its ${tag}: the quote's promise holds ${pct(PROMISE_TARGET)} of the time`, p.text);
    }
  }
  return out;
}
