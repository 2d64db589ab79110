/**
 * The fee grid as Hush's processes share it (one store row, src/store/fee-grid-store.ts): what a worker does
 * with a reading of the market, and which rung a quote of a class gets. Pure; the steps of the grid itself are
 * src/domain/fee-grid.ts (docs/decisions.md, "The network fee on a grid").
 */
import { GRID_RULE, gridMoveEffectiveAt, gridRungFor, movedGrid, observeGrid, restartedWatch, rungForClass, startGrid, type GridRule, type GridState, type PendingMove } from './fee-grid.ts';

export interface SharedGrid extends GridState {
  /** When the market was last read into it (ms). */
  observedAt: number;
  /**
   * A move decided, not yet in effect everywhere: the old rung stays with windows opened before `decidedAt`.
   * `effectiveAt`: when it is expected to take effect (gridMoveEffectiveAt over the windows open at the decision);
   * what decides is the windows themselves (stepSharedGrid).
   */
  pending: (PendingMove & { effectiveAt: number }) | null;
}

/** An open release window of a class: since when its members were quoted, and when it releases at the latest (ms). */
export interface OpenWindow {
  key: string;
  openedAt: number;
  endsAt: number;
}

/**
 * How far ahead of its decision a move is announced (ms): every API process reads the grid more often than
 * this (FeeGridView), so by `decidedAt` all of them know it and quote a class whose window opened before it at
 * the old rung. Before `decidedAt` everyone quotes the old rung.
 */
export const GRID_ANNOUNCE_MS = 15_000;
/** Readings further apart than this (a worker that could not read the market) start the watch again: the time between them is not weighed. */
export const GRID_READING_GAP_MS = 60_000;

/**
 * The first reading of a fresh store: at the rung nearest the market when no class window is open (no quote of a
 * private class is outstanding, so nothing can be split), else at the configured price's rung, moved as the grid moves.
 */
export function firstGrid(fast: bigint, fallback: bigint, now: number, anyWindowOpen: boolean, rule: GridRule = GRID_RULE): SharedGrid {
  // The open windows were quoted at the configured price's covering rung (quotedRung with no grid): kept exactly.
  const start = anyWindowOpen ? { ...startGrid(fallback, rule), step: gridRungFor(fallback, rule.grid) } : startGrid(fast, rule);
  return { ...start, observedAt: now, pending: null };
}

/**
 * One reading of the market's `fast` estimate at `now` (`windows`: the classes' open windows, read only when
 * asked: `needsWindows`). A new move is announced GRID_ANNOUNCE_MS ahead; it takes effect once no window opened
 * before its decision is still open: every member quoted at the old rung has been released (or its order ended),
 * whether that is at the expected time (gridMoveEffectiveAt over the windows open at the decision), earlier (a
 * release came sooner) or later (a window opened during the announcement, at the old rung). Not at a fixed time:
 * a window that outlived it would then have members quoted at both rungs. While it waits, the watch waits too.
 */
export function stepSharedGrid(g: SharedGrid, fast: bigint, now: number, windows: readonly OpenWindow[], rule: GridRule = GRID_RULE): { grid: SharedGrid; moved: 'decided' | 'effective' | null } {
  if (g.pending) {
    const oldOpen = windows.some((w) => w.openedAt < g.pending!.decidedAt);
    if (now >= g.pending.decidedAt && !oldOpen) return { grid: { ...movedGrid(g.pending.to), observedAt: now, pending: null }, moved: 'effective' };
    return { grid: { ...g, observedAt: now }, moved: null };
  }
  const watched = now - g.observedAt > GRID_READING_GAP_MS ? restartedWatch(g) : g;
  const { state, move } = observeGrid(watched, fast, now, rule);
  if (move === null || move === g.step) return { grid: { ...state, observedAt: now, pending: null }, moved: null };
  const decidedAt = now + GRID_ANNOUNCE_MS;
  const effectiveAt = gridMoveEffectiveAt(decidedAt, windows.map((w) => w.endsAt));
  return { grid: { ...movedGrid(g.step), observedAt: now, pending: { from: g.step, to: move, decidedAt, effectiveAt } }, moved: 'decided' };
}

/** Whether a reading needs the open windows (a decision may fall, or a pending move may end). */
export function needsWindows(g: SharedGrid, fast: bigint, now: number, rule: GridRule = GRID_RULE): boolean {
  if (g.pending) return now >= g.pending.decidedAt;
  return observeGrid(now - g.observedAt > GRID_READING_GAP_MS ? restartedWatch(g) : g, fast, now, rule).move !== null;
}

/**
 * The compute-unit price a quote's flat networkFee is priced at (docs/spec.md §9): the rung; while a move is
 * pending, the old one before its decision and for a class whose window opened before it (rungForClass), the
 * new one otherwise. `windowOpenedAt`: the quoted class's open window (null: none, or not a private amount).
 */
export function quotedRung(g: SharedGrid | null, fallback: bigint, now: number, windowOpenedAt: number | null, rule: GridRule = GRID_RULE): bigint {
  if (!g) return gridRungFor(fallback, rule.grid);
  if (!g.pending) return g.step;
  if (now < g.pending.decidedAt) return g.pending.from;
  return rungForClass(g.pending, g.step, windowOpenedAt);
}
