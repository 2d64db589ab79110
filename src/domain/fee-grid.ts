/**
 * The compute-unit price behind the quote's flat `networkFee` (docs/spec.md §9: at any moment one figure per
 * asset and mode; docs/decisions.md, "The network fee on a grid" and "...: the mean of the market"). It follows
 * the mean of the market in coarse rungs, only after that mean has called for another rung for minutes, and never
 * inside a class release window: members released together paid the same, so the fee names no deposit's minute.
 */

/** The rungs: powers of two from 1,000 micro-lamports (today's static price) up to 2,048,000. */
export const FEE_GRID: readonly bigint[] = Array.from({ length: 12 }, (_, i) => 1_000n << BigInt(i));

export interface GridRule {
  grid: readonly bigint[];
  /** How long the market's mean must call for a higher rung before it steps up. */
  upAfterMs: number;
  /** How long it must call for a lower one before it steps down: longer, since a fee too low costs Hush, one too high its partners. */
  downAfterMs: number;
}

export const GRID_RULE: GridRule = { grid: FEE_GRID, upAfterMs: 5 * 60_000, downAfterMs: 30 * 60_000 };

/**
 * A watch for one move (up or down): since when the market's readings have called for it, and their
 * time-weighted sum meanwhile (each interval between two readings at the mean of its ends: the readings'
 * cadence, a Hush that signs or an idle one, several workers, weighs nothing), and the same over its second
 * half (the intervals that end after half its wait).
 */
export interface GridWatch {
  since: number;
  /** Twice the time-weighted sum, Σ (a + b) × Δt in micro-lamports per CU × ms: an integer. */
  sum2: bigint;
  /** The time it covers (ms). */
  ms: number;
  late: { sum2: bigint; ms: number };
}

export interface GridState {
  /** The rung quotes are priced at. */
  step: bigint;
  /** The last reading (clipped to the grid's top) and when it came: where the next interval starts. */
  last: { at: number; price: bigint } | null;
  /** A watch whose mean calls for a higher rung, and one whose mean calls for a lower one. */
  above: GridWatch | null;
  below: GridWatch | null;
}

/** The lowest rung at or above `price`; the top rung when the price is above them all. */
export function gridRungFor(price: bigint, grid: readonly bigint[] = FEE_GRID): bigint {
  for (const rung of grid) if (rung >= price) return rung;
  return grid[grid.length - 1]!;
}

/**
 * The rung nearest `price` in lamports (a tie goes up): what a steady market at that price is charged. Between
 * two rungs r and 2r the boundary is 1.5r, so the flat figure's priority part is within a third of the mean
 * price either way (docs/decisions.md, "The network fee on a grid: the mean of the market"): covering (rounding
 * up) would charge partners up to twice what Hush pays.
 */
export function gridRungNearest(price: bigint, grid: readonly bigint[] = FEE_GRID): bigint {
  let under: bigint | null = null;
  for (const rung of grid) {
    if (rung >= price) return under !== null && price - under < rung - price ? under : rung;
    under = rung;
  }
  return grid[grid.length - 1]!;
}

export function startGrid(estimate: bigint, rule: GridRule = GRID_RULE): GridState {
  return { step: gridRungNearest(estimate, rule.grid), last: null, above: null, below: null };
}

/** A time-weighted mean; over no time yet, the one reading there is, `price`. */
export function watchMean(w: { sum2: bigint; ms: number }, price: bigint): bigint {
  return w.ms > 0 ? w.sum2 / (2n * BigInt(w.ms)) : price;
}

/**
 * One reading of the market's estimate (the `fast` level's price, src/domain/fee-estimate.ts) at `now`: the
 * state it leaves, and the rung to move to when a move is due (null: stay). A watch starts at a reading whose
 * nearest rung is above the step (below) and goes on while its time-weighted mean's nearest rung still is. Once
 * it has lasted the wait (`upAfterMs` up, `downAfterMs` down) it moves the step to the rung nearest its mean if
 * the mean of its second half calls for the move as well, and ends if not. Bursts count by what they cost, so a
 * market whose bursts make most of what Hush pays is charged for them; a lone burst, whose cost falls in one
 * half, moves nothing. A reading counts at most the top rung (nothing above it is charged). The move takes
 * effect at `gridMoveEffectiveAt`; then `movedGrid`.
 */
export function observeGrid(state: GridState, estimate: bigint, now: number, rule: GridRule = GRID_RULE): { state: GridState; move: bigint | null } {
  const top = rule.grid[rule.grid.length - 1]!;
  const price = estimate > top ? top : estimate;
  const dt = state.last ? Math.max(0, now - state.last.at) : 0;
  const add = state.last ? (state.last.price + price) * BigInt(dt) : 0n;
  const nearest = (p: bigint) => gridRungNearest(p, rule.grid);
  let move: bigint | null = null;
  const follow = (w: GridWatch | null, waitMs: number, calls: (rung: bigint) => boolean): GridWatch | null => {
    const late = w && now - w.since > waitMs / 2 ? { sum2: w.late.sum2 + add, ms: w.late.ms + dt } : w?.late;
    const going = w && late && { since: w.since, sum2: w.sum2 + add, ms: w.ms + dt, late };
    if (going && calls(nearest(watchMean(going, price)))) {
      if (now - going.since < waitMs) return going;
      // The wait is over: a move when both halves call for it (at most one: up is looked at first).
      const early = { sum2: going.sum2 - going.late.sum2, ms: going.ms - going.late.ms };
      if (move === null && calls(nearest(watchMean(going.late, price))) && calls(nearest(watchMean(early, price)))) move = nearest(watchMean(going, price));
    }
    return calls(nearest(price)) ? { since: now, sum2: 0n, ms: 0, late: { sum2: 0n, ms: 0 } } : null;
  };
  // At the top rung nothing is above, at the bottom nothing below: `nearest` never leaves the grid.
  const above = follow(state.above, rule.upAfterMs, (r) => r > state.step);
  const below = follow(state.below, rule.downAfterMs, (r) => r < state.step);
  return { state: { step: state.step, last: { at: now, price }, above, below }, move };
}

/** The state once a move has taken effect: the new rung, its watch started afresh. */
export function movedGrid(step: bigint): GridState {
  return { step, last: null, above: null, below: null };
}

/** The same rung with its watches started afresh (readings too far apart to weigh the time between them). */
export function restartedWatch<T extends GridState>(state: T): T {
  return { ...state, last: null, above: null, below: null };
}

/**
 * The earliest moment a move decided at `decidedAt` may take effect: once every class release window open
 * then has ended (`openWindowEnds`: when each is due to release at the latest), so no release has members
 * quoted on both sides of it.
 */
export function gridMoveEffectiveAt(decidedAt: number, openWindowEnds: Iterable<number>): number {
  let at = decidedAt;
  for (const end of openWindowEnds) if (end > at) at = end;
  return at;
}

export interface PendingMove {
  from: bigint;
  to: bigint;
  decidedAt: number;
}

/**
 * The rung a quote of a class gets while a move is pending, for a Hush whose windows never all close at once
 * (steady traffic): a class whose current window opened before the decision keeps the old rung to its release,
 * any window opened since starts at the new one. Each release then has one rung, and the move needs no quiet
 * moment; the old rung is gone at `gridMoveEffectiveAt`.
 */
export function rungForClass(pending: PendingMove | null, current: bigint, classWindowOpenedAt: number | null): bigint {
  if (!pending) return current;
  return classWindowOpenedAt !== null && classWindowOpenedAt < pending.decidedAt ? pending.from : pending.to;
}
