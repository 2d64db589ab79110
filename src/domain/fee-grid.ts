/**
 * The compute-unit price behind the quote's flat `networkFee` (docs/spec.md §9: at any moment one figure per
 * asset and mode; docs/decisions.md, "The network fee on a grid"). It follows the market only in coarse rungs,
 * only after the market has stayed past a rung for minutes, and never inside a class release window: members
 * released together paid the same, so the fee names no deposit's minute.
 */

/** The rungs: powers of two from 1,000 micro-lamports (today's static price) up to 2,048,000. */
export const FEE_GRID: readonly bigint[] = Array.from({ length: 12 }, (_, i) => 1_000n << BigInt(i));

export interface GridRule {
  grid: readonly bigint[];
  /** How long the market must stay above the rung before it steps up. */
  upAfterMs: number;
  /** How long it must stay below the rung under it before it steps down: longer, since a fee too low costs Hush, one too high its partners. */
  downAfterMs: number;
}

export const GRID_RULE: GridRule = { grid: FEE_GRID, upAfterMs: 5 * 60_000, downAfterMs: 30 * 60_000 };

export interface GridState {
  /** The rung quotes are priced at. */
  step: bigint;
  /** Since when the market has stayed above the rung, and the lowest it was meanwhile. */
  above: { since: number; low: bigint } | null;
  /** Since when it has stayed below the rung under it, and the highest it was meanwhile. */
  below: { since: number; high: bigint } | null;
}

/** The lowest rung at or above `price`; the top rung when the price is above them all. */
export function gridRungFor(price: bigint, grid: readonly bigint[] = FEE_GRID): bigint {
  for (const rung of grid) if (rung >= price) return rung;
  return grid[grid.length - 1]!;
}

function rungBelow(step: bigint, grid: readonly bigint[]): bigint | null {
  let below: bigint | null = null;
  for (const rung of grid) if (rung < step) below = rung;
  return below;
}

export function startGrid(estimate: bigint, rule: GridRule = GRID_RULE): GridState {
  return { step: gridRungFor(estimate, rule.grid), above: null, below: null };
}

/**
 * One reading of the market's estimate (the `fast` level's price, src/domain/fee-estimate.ts) at `now`: the
 * state it leaves, and the rung to move to when a move is due (null: stay). The move is the rung that covers
 * what the market kept to the whole time (its lowest while above, its highest while below), so one spike
 * does not set it. It takes effect at `gridMoveEffectiveAt`; then `movedGrid`.
 */
export function observeGrid(state: GridState, estimate: bigint, now: number, rule: GridRule = GRID_RULE): { state: GridState; move: bigint | null } {
  const lower = rungBelow(state.step, rule.grid);
  // At the top rung there is nowhere to go up to: the market above it is Hush's to absorb (and alert on).
  const top = state.step >= rule.grid[rule.grid.length - 1]!;
  const above = estimate > state.step && !top ? (state.above ? { since: state.above.since, low: estimate < state.above.low ? estimate : state.above.low } : { since: now, low: estimate }) : null;
  const below = lower !== null && estimate < lower ? (state.below ? { since: state.below.since, high: estimate > state.below.high ? estimate : state.below.high } : { since: now, high: estimate }) : null;
  const next = { step: state.step, above, below };
  if (above && now - above.since >= rule.upAfterMs) return { state: next, move: gridRungFor(above.low, rule.grid) };
  if (below && now - below.since >= rule.downAfterMs) return { state: next, move: gridRungFor(below.high, rule.grid) };
  return { state: next, move: null };
}

/** The state once a move has taken effect: the new rung, its watch started afresh. */
export function movedGrid(step: bigint): GridState {
  return { step, above: null, below: null };
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
