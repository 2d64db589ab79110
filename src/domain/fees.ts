/**
 * docs/spec.md §4 fee arithmetic. Everything is integer bigint in the SOURCE asset's base units:
 *   partnerFee  = floor(amountIn × feeBps / 10000)
 *   serviceFee  = floor(amountIn × serviceFeeBps / 10000)
 *   protocolFee = serviceFee + partnerFee
 *   fee         = protocolFee + networkFee
 *   same asset:  amountIn = amountOut + fee
 * Quotes are firm, so these functions are the single place where the numbers are decided; the
 * order path re-derives nothing, it replays the quote.
 */
import { HushError } from './errors.ts';
import { type Amount, U64_MAX, formatAmount, toAmount } from './money.ts';

export type QuoteMode = 'exact_in' | 'exact_out';

const BPS_DENOMINATOR = 10_000n;
/** Ceiling for both the partner's feeBps (docs/spec.md §3 hard cap) and Hush's own serviceFeeBps. */
const MAX_FEE_BPS = 1000;

export interface FeeInput {
  mode: QuoteMode;
  /** The pinned side: amountIn under exact_in, amountOut under exact_out. */
  amount: Amount;
  /** Partner share, 0..1000 (the per-account cap is the API's concern). */
  feeBps: number;
  /** Hush's own fee, 0..1000, from configuration. */
  serviceFeeBps: number;
  /** Every transaction Hush pays for this order, already converted to source units, rounded up. */
  networkFee: Amount;
  /** Live bounds of `amount` for the source asset. */
  min: Amount;
  max: Amount;
}

export interface FeeParts {
  serviceFee: Amount;
  partnerFee: Amount;
  networkFee: Amount;
  protocolFee: Amount;
  fee: Amount;
}

export interface FeeQuote extends FeeParts {
  mode: QuoteMode;
  amountIn: Amount;
  /** In the destination asset's base units (the source asset for a send). */
  amountOut: Amount;
}

function checkBps(name: string, bps: number): bigint {
  // A bad bps is a caller bug (the API validates feeBps against the account cap first).
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_FEE_BPS) {
    throw new RangeError(`${name} must be an integer in 0..${MAX_FEE_BPS}, got ${bps}`);
  }
  return BigInt(bps);
}

interface RawFees {
  serviceFee: bigint;
  partnerFee: bigint;
  protocolFee: bigint;
  fee: bigint;
}

function rawFees(amountIn: bigint, p: bigint, s: bigint, networkFee: bigint): RawFees {
  const partnerFee = (amountIn * p) / BPS_DENOMINATOR;
  const serviceFee = (amountIn * s) / BPS_DENOMINATOR;
  const protocolFee = serviceFee + partnerFee;
  return { serviceFee, partnerFee, protocolFee, fee: protocolFee + networkFee };
}

function toParts(raw: RawFees, networkFee: Amount): FeeParts {
  return {
    serviceFee: toAmount(raw.serviceFee),
    partnerFee: toAmount(raw.partnerFee),
    networkFee,
    protocolFee: toAmount(raw.protocolFee),
    fee: toAmount(raw.fee),
  };
}

/**
 * The fee parts charged on a given amountIn. protocolFee ≤ 0.2 × amountIn always fits u64; `fee`
 * exceeds u64 only if networkFee is absurd (RangeError), a case quotes reject as AMOUNT_TOO_LOW first.
 */
export function feesOn(amountIn: Amount, feeBps: number, serviceFeeBps: number, networkFee: Amount): FeeParts {
  const raw = rawFees(amountIn, checkBps('feeBps', feeBps), checkBps('serviceFeeBps', serviceFeeBps), networkFee);
  return toParts(raw, networkFee);
}

function bounds(min: Amount, max: Amount): { min: string; max: string } {
  return { min: formatAmount(min), max: formatAmount(max) };
}

function doesNotCoverFees(min: Amount, max: Amount): HushError<'AMOUNT_TOO_LOW'> {
  return new HushError('AMOUNT_TOO_LOW', 'amount does not cover the fees', bounds(min, max));
}

function checkBounds(input: FeeInput): void {
  const { amount, min, max } = input;
  if (amount < 1n || amount < min) {
    throw new HushError('AMOUNT_TOO_LOW', `amount is below the minimum of ${min}`, bounds(min, max));
  }
  if (amount > max) {
    throw new HushError('AMOUNT_TOO_HIGH', `amount is above the maximum of ${max}`, bounds(min, max));
  }
}

/** amountOut for a same-asset send of amountIn: f(x) = x − floor(xP/B) − floor(xS/B) − N (may be < 1). */
function netOf(x: bigint, p: bigint, s: bigint, n: bigint): bigint {
  return x - (x * p) / BPS_DENOMINATOR - (x * s) / BPS_DENOMINATOR - n;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  // b > 0; bigint division truncates toward zero.
  return a >= 0n ? (a + b - 1n) / b : -(-a / b);
}

/**
 * Smallest x with f(x) = A, where B = 10000, R = B − P − S (≥ 8000 because P, S ≤ 1000).
 *
 * Why scanning a few steps from a lower bound is correct and minimal:
 * - Bounds on f. For an integer y ≥ 0, y/B − (B−1)/B ≤ floor(y/B) ≤ y/B. Hence
 *     x·R/B − N  ≤  f(x)  ≤  (x·R + 2(B−1))/B − N.
 * - Below L = ceil(((A+N)·B − 2(B−1)) / R) every x has x·R < (A+N)·B − 2(B−1), so f(x) < A:
 *   no x < L delivers A, i.e. nothing smaller than L can be the answer.
 * - Above U = floor((A+N)·B / R) every x has x·R > (A+N)·B, so f(x) > A.
 * - Step size. floor(xP/B) grows by 0 or 1 when x grows by 1 (P ≤ B), likewise for S, so
 *   f(x+1) − f(x) = 1 − d₁ − d₂ ∈ {−1, 0, 1}: f is not monotone, but it cannot jump over A.
 * - f(L−1) < A (or L ≤ 0 and f(0) = −N < A since A ≥ 1) and f(U+1) > A, so by the discrete
 *   intermediate value argument some x in [max(L,0), U] has f(x) = A, and the first one met when
 *   scanning upward from max(L,0) is the global minimum. U − L ≤ 2(B−1)/R < 2.5, so the scan
 *   evaluates at most 3 candidates. Also f(x−1) = A − 1 for the answer (it is < A and one step away).
 */
function smallestAmountInFor(a: bigint, p: bigint, s: bigint, n: bigint): bigint {
  const r = BPS_DENOMINATOR - p - s;
  let x = ceilDiv((a + n) * BPS_DENOMINATOR - 2n * (BPS_DENOMINATOR - 1n), r);
  if (x < 0n) x = 0n;
  for (let step = 0; step < 8; step++, x++) {
    if (netOf(x, p, s, n) === a) return x;
  }
  throw new Error('unreachable: exact_out scan exceeded its proven bound');
}

/** A same-asset quote (a send): `amountIn = amountOut + fee` exactly. Throws HushError. */
export function quoteSameAsset(input: FeeInput): FeeQuote {
  const { mode, amount, networkFee, min, max } = input;
  const p = checkBps('feeBps', input.feeBps);
  const s = checkBps('serviceFeeBps', input.serviceFeeBps);
  checkBounds(input);
  let amountIn: bigint;
  if (mode === 'exact_in') {
    amountIn = amount;
  } else {
    amountIn = smallestAmountInFor(amount, p, s, networkFee);
    if (amountIn > U64_MAX) {
      throw new HushError('AMOUNT_TOO_HIGH', 'amount plus fees exceeds the largest token amount', bounds(min, max));
    }
  }
  const raw = rawFees(amountIn, p, s, networkFee);
  const amountOut = amountIn - raw.fee;
  if (amountOut < 1n) {
    // Only exact_in gets here. details.min is then the smallest amount that delivers anything, so a client
    // retrying with it succeeds (none does above max: then min stays the asset's).
    const covering = smallestAmountInFor(1n, p, s, networkFee);
    throw doesNotCoverFees(covering > min && covering <= max ? toAmount(covering) : min, max);
  }
  return { mode, amountIn: toAmount(amountIn), amountOut: toAmount(amountOut), ...toParts(raw, networkFee) };
}

/**
 * A cross-asset quote (a private swap), exact_in only (docs/spec.md §4):
 * `amountOut = grid(floor(convert(amountIn − fee)))`. `convert` maps source base units to destination base
 * units and must round down itself (it returns an integer Amount); prices are the caller's concern. The
 * result is rounded down to a multiple of `grid` (the destination's swap grid, docs/spec.md §9), so a price tick
 * does not give two swaps of one class different payouts; the remainder stays with Hush as spread.
 */
export function quoteCrossAsset(input: FeeInput & { convert: (sourceNet: Amount) => Amount; grid?: bigint }): FeeQuote {
  const { mode, amount, networkFee, min, max } = input;
  if (mode !== 'exact_in') {
    throw new HushError('UNSUPPORTED_MODE', 'cross-asset quotes support exact_in only', { mode });
  }
  const p = checkBps('feeBps', input.feeBps);
  const s = checkBps('serviceFeeBps', input.serviceFeeBps);
  checkBounds(input);
  const raw = rawFees(amount, p, s, networkFee);
  const net = amount - raw.fee;
  if (net < 1n) throw doesNotCoverFees(min, max);
  const grid = input.grid ?? 1n;
  if (grid < 1n) throw new RangeError(`grid must be at least 1, got ${grid}`);
  const amountOut = (input.convert(toAmount(net)) / grid) * grid;
  if (amountOut < 1n) throw doesNotCoverFees(min, max); // worth less than one step of the destination grid
  return { mode, amountIn: amount, amountOut: toAmount(amountOut), ...toParts(raw, networkFee) };
}
