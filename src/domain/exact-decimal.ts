/**
 * Exact decimal text → fraction, and fraction helpers. Prices reach Hush as decimal text (a config file,
 * Pyth's integer mantissa and exponent, Jupiter's JSON numbers); none of them may pass through a
 * float, so this module turns the *text* into an exact `num/den` of bigints.
 */
import type { Price } from './price.ts';

/** An exact fraction; `den > 0`. `Price` is a Fraction with `num > 0`. */
export interface Fraction {
  readonly num: bigint;
  readonly den: bigint;
}

// JSON number grammar (RFC 8259 §6), also what the config files use.
const DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** Exponents beyond this are refused: no price or amount needs them and 10^huge would hang. */
const MAX_DECIMAL_EXPONENT = 60;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Lowest terms with a positive denominator. */
export function reduce(f: Fraction): Fraction {
  if (f.den === 0n) throw new RangeError('fraction with zero denominator');
  const sign = f.den < 0n ? -1n : 1n;
  const g = gcd(f.num, f.den) || 1n;
  return { num: (sign * f.num) / g, den: (sign * f.den) / g };
}

/**
 * Parses decimal text in JSON number syntax (`-0.0000123`, `147.48`, `1.5e-7`) exactly. Returns null
 * for anything else (including `NaN`, `Infinity`, hex, leading `+`, empty strings, huge exponents).
 */
export function parseDecimalFraction(text: string): Fraction | null {
  if (typeof text !== 'string' || text.length > 200) return null;
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const negative = m[1] === '-';
  const frac = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > MAX_DECIMAL_EXPONENT) return null;
  let num = BigInt(m[2]! + frac);
  let den = 10n ** BigInt(frac.length);
  if (exp > 0) num *= 10n ** BigInt(exp);
  else if (exp < 0) den *= 10n ** BigInt(-exp);
  if (negative) num = -num;
  return reduce({ num, den });
}

/** A strictly positive price from decimal text, or null. */
export function parsePositivePrice(text: string): Price | null {
  const f = parseDecimalFraction(text);
  return f && f.num > 0n ? f : null;
}

/** `mantissa × 10^expo` exactly (Pyth's representation), in lowest terms. */
export function fromMantissaExponent(mantissa: bigint, expo: number): Fraction {
  if (!Number.isSafeInteger(expo) || Math.abs(expo) > MAX_DECIMAL_EXPONENT) throw new RangeError(`exponent out of range: ${expo}`);
  return expo >= 0 ? reduce({ num: mantissa * 10n ** BigInt(expo), den: 1n }) : reduce({ num: mantissa, den: 10n ** BigInt(-expo) });
}

/** a < b, a ≤ b etc. as a three-way comparison of exact fractions (denominators positive). */
export function compareFractions(a: Fraction, b: Fraction): -1 | 0 | 1 {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

