/**
 * The cross-asset conversion of docs/spec.md §4 (`amountOut = floor(convert(amountIn − fee))`), as one exact
 * rational expression with a single floor at the end:
 *
 *   out = floor( amount × pFrom × 10^dTo × (10000 − spreadBps)
 *                ─────────────────────────────────────────────── )
 *                pTo × 10^dFrom × 10000
 *
 * with pFrom, pTo the USD prices of one *whole* token as exact fractions. No float ever touches an
 * amount, and bigint means no overflow at any magnitude (u64 amounts × 12-decimal scales × large
 * price numerators stay exact).
 *
 * Properties (proved here, checked by the property tests in test/domain/swap-conversion.test.ts):
 * - Monotone: the map x ↦ floor(x·R) with R ≥ 0 is non-decreasing in x.
 * - Never over-delivers: out ≤ x·R (floor), and out > x·R − 1 (it is the floor, not a lower bound).
 * - Round trip A→B→A with spread 0: let r = pA·10^dB / (pB·10^dA) (B units per A unit), y = ⌊x·r⌋,
 *   z = ⌊y/r⌋ (the B→A rate is exactly 1/r), and e₁ = x·r − y ∈ [0, 1) the first rounding in B units.
 *   Then y/r = x − e₁/r, so z = ⌊x − e₁/r⌋ and, x being an integer,
 *       x − z = ⌈e₁/r⌉ ≤ ⌈1/r⌉,   and   0 ≤ x − z < 1 + 1/r.
 *   The first floor loses < 1 unit of B (worth < 1/r units of A), the second < 1 unit of A: at most one
 *   base unit per conversion, expressed in A. When B's base unit is worth no more than A's (r ≥ 1),
 *   1/r ≤ 1 and the loss is ≤ 1 unit of A; when B is coarser (e.g. BONK→USDC→BONK, 1/r = 5000), the
 *   loss is below one unit of B, i.e. ≤ 4999 BONK units there.
 */
import type { Fraction } from './exact-decimal.ts';
import type { Price } from './price.ts';

const SPREAD_DENOMINATOR = 10_000n;
/** Decimals Hush accepts for an asset (SPL mints have a u8; real tokens use 0..18). */
const MAX_ASSET_DECIMALS = 30;

export interface PricedAsset {
  /** USD per whole token, exact, > 0. */
  readonly price: Price;
  readonly decimals: number;
}

function checkSide(name: string, side: PricedAsset): void {
  if (side.price.num <= 0n || side.price.den <= 0n) throw new RangeError(`${name} price must be a positive fraction`);
  if (!Number.isInteger(side.decimals) || side.decimals < 0 || side.decimals > MAX_ASSET_DECIMALS) {
    throw new RangeError(`${name} decimals must be an integer in 0..${MAX_ASSET_DECIMALS}, got ${side.decimals}`);
  }
}

function checkSpread(spreadBps: number): bigint {
  if (!Number.isInteger(spreadBps) || spreadBps < 0 || spreadBps >= 10_000) {
    throw new RangeError(`spreadBps must be an integer in 0..9999, got ${spreadBps}`);
  }
  return BigInt(spreadBps);
}

/**
 * The exact rate R (destination base units per source base unit, spread applied) as an unreduced
 * fraction, so `convertForSwap(x) = floor(x × R.num / R.den)`.
 */
export function swapRate(from: PricedAsset, to: PricedAsset, spreadBps: number): Fraction {
  checkSide('from', from);
  checkSide('to', to);
  const s = checkSpread(spreadBps);
  return {
    num: from.price.num * to.price.den * 10n ** BigInt(to.decimals) * (SPREAD_DENOMINATOR - s),
    den: from.price.den * to.price.num * 10n ** BigInt(from.decimals) * SPREAD_DENOMINATOR,
  };
}

/**
 * floor(amount × pFrom/pTo × 10^(dTo−dFrom) × (10000 − spreadBps)/10000), exactly. `amount` ≥ 0.
 * The result may exceed u64 (e.g. a huge SOL amount into BONK base units): the caller bounds it.
 */
export function convertForSwap(amount: bigint, from: PricedAsset, to: PricedAsset, spreadBps: number): bigint {
  if (amount < 0n) throw new RangeError('amount must not be negative');
  const r = swapRate(from, to, spreadBps);
  return (amount * r.num) / r.den;
}

/** The exact, unrounded value of a conversion (for tests, reports and reasoning; never for payouts). */
export function exactSwapValue(amount: bigint, from: PricedAsset, to: PricedAsset, spreadBps: number): Fraction {
  const r = swapRate(from, to, spreadBps);
  return { num: amount * r.num, den: r.den };
}

/**
 * The proved round-trip bound ⌈1/r⌉ in A's base units for A→B→A at spread 0, where r is B base units
 * per A base unit (see the module comment).
 */
export function roundTripLossBound(a: PricedAsset, b: PricedAsset): bigint {
  const r = swapRate(a, b, 0);
  // 1/r = r.den / r.num
  return (r.den + r.num - 1n) / r.num;
}
