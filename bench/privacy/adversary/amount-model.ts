/**
 * A2's knowledge: which payout amounts a deposit can produce under Hush's public fee schedule, for every
 * partner fee 0…cap and every network-fee variant the quote endpoint shows (recipient with or without a
 * token account, exact_in or exact_out). Built from quotes (fee-schedule.ts); evaluated here without I/O.
 */
import type { ObservedDeposit, ObservedPayout } from './observation.ts';

/** What one quote with feeBps = 0 says about a deposit amount: what arrives, and the fee taken. */
export interface QuotePoint {
  amountOut: bigint;
  fee: bigint;
}

/** The token-account variant the payout reveals: a SOL payout has none. */
export type Variant = 'created' | 'existing' | 'native';

export function variantOf(p: ObservedPayout, destinationNative: boolean): Variant {
  return destinationNative ? 'native' : p.createdTokenAccount ? 'created' : 'existing';
}

export interface AmountSchedule {
  /** Largest partner fee an account can charge (docs/spec.md §3's hard ceiling unless the adversary knows better). */
  feeCapBps: number;
  /** The exact_in quote of `amount` from `source` to `destination` for that variant, or undefined if none. */
  point(source: string, amount: bigint, destination: string, variant: Variant): QuotePoint | undefined;
  /** exact_out's network fee minus exact_in's for a same-asset send (0 when they are one figure). */
  exactOutShift(asset: string, variant: Variant): bigint;
  /** Swap payouts are rounded down to this step in the destination asset (1 = no grid). */
  grid(destination: string): bigint;
  native(asset: string): boolean;
  swappable(asset: string): boolean;
}

const BPS = 10_000n;

/** How many partner fees k in [0, cap] give floor(a·k / 10⁴) = delta. */
function feesGiving(a: bigint, delta: bigint, cap: number): number {
  if (delta < 0n || a <= 0n) return 0;
  const ceilDiv = (x: bigint, y: bigint) => (x + y - 1n) / y;
  let lo = ceilDiv(delta * BPS, a);
  let hi = ceilDiv((delta + 1n) * BPS, a) - 1n;
  if (lo < 0n) lo = 0n;
  if (hi > BigInt(cap)) hi = BigInt(cap);
  return hi >= lo ? Number(hi - lo + 1n) : 0;
}

/** How many k in [0, cap] convert to an amount within [b − 1, b + grid]: out(k) falls as k rises. */
function swapFeesGiving(a: bigint, q: QuotePoint, b: bigint, grid: bigint, cap: number): number {
  const x0 = Number(a - q.fee);
  if (x0 <= 0) return 0;
  const rate = Number(q.amountOut) / x0;
  const out = (k: number) => Math.floor(rate * (x0 - Number((a * BigInt(k)) / BPS)) + 1e-9);
  const lo = Number(b) - 1;
  const hi = Number(b + grid);
  // first k with out(k) <= hi, first k with out(k) < lo
  const first = (pred: (k: number) => boolean) => {
    let l = 0;
    let h = cap + 1;
    while (l < h) {
      const mid = (l + h) >> 1;
      if (pred(mid)) h = mid;
      else l = mid + 1;
    }
    return l;
  };
  const from = first((k) => out(k) <= hi);
  const to = first((k) => out(k) < lo);
  return Math.max(0, to - from);
}

/**
 * Likelihood of the amounts alone: the share of the (mode, partner fee) combinations, each equally likely
 * a priori, under which this deposit pays exactly this payout.
 */
export function amountLikelihood(s: AmountSchedule, d: ObservedDeposit, p: ObservedPayout): number {
  const variant = variantOf(p, s.native(p.assetId));
  const combos = s.feeCapBps + 1;
  if (d.assetId === p.assetId) {
    const q = s.point(d.assetId, d.amount, p.assetId, variant);
    if (!q) return 0;
    const exactIn = feesGiving(d.amount, q.amountOut - p.amount, s.feeCapBps);
    const exactOut = feesGiving(d.amount, q.amountOut - s.exactOutShift(d.assetId, variant) - p.amount, s.feeCapBps);
    return (exactIn + exactOut) / (2 * combos);
  }
  if (!s.swappable(d.assetId) || !s.swappable(p.assetId)) return 0;
  const q = s.point(d.assetId, d.amount, p.assetId, variant);
  if (!q) return 0;
  return swapFeesGiving(d.amount, q, p.amount, s.grid(p.assetId), s.feeCapBps) / combos;
}
