/** Pieces of a PASS/MISS line that report.ts and shaped-report.ts both print. */
import type { PromiseKept, RowScore } from './score.ts';

/** The share of orders a quote's promise must hold for (its odds, PROMISE_ODDS in src/domain/class-release.ts). */
export const PROMISE_TARGET = 0.8;

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '–');

/**
 * A row's linked share with one standard error of it (the adversary's expected success over its
 * tie-breaks, the error clustered by class: linked-estimate.ts): a target a row meets or misses by less
 * than this is not decided by the run.
 */
export function linkedWithError(r: Pick<RowScore, 'linked' | 'linkedSE'>): string {
  return `${(100 * r.linked).toFixed(1)} ± ${(100 * r.linkedSE).toFixed(1)} %`;
}

/** Whether a promise held at its odds, and the line's figures. */
export function promiseLine(p: PromiseKept | undefined): { ok: boolean | null; text: string } {
  if (!p || p.orders === 0) return { ok: null, text: 'no private order completed' };
  return { ok: p.setKept >= PROMISE_TARGET && p.waitKept >= PROMISE_TARGET, text: `set kept for ${pct(p.setKept)}, wait kept for ${pct(p.waitKept)} of ${p.orders} orders` };
}
