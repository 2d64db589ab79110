/**
 * Token amounts in base units. Money is a u64 on chain (SPL token amounts, lamports), so it is a
 * bigint here, range-checked once at the edge and branded so that an unchecked bigint (or a
 * `number`, which silently loses precision above 2^53) cannot be passed where money is expected.
 */

declare const amountBrand: unique symbol;

/** An integer number of base units, 0 ≤ x ≤ 2^64 − 1. Obtain one from `parseAmount` or `toAmount`. */
export type Amount = bigint & { readonly [amountBrand]: 'Amount' };

export const U64_MAX = 0xffff_ffff_ffff_ffffn as Amount;
export const ZERO = 0n as Amount;

// Wire form fixed by docs/spec.md §2: decimal digits, no sign, no leading zeros. u64 max has 20 digits,
// so the length check keeps BigInt() from ever seeing a huge string.
const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)$/;
export const U64_MAX_DIGITS = 20;

export function isAmount(value: unknown): value is Amount {
  return typeof value === 'bigint' && value >= 0n && value <= U64_MAX;
}

/** Brands a bigint computed by domain code; a value outside u64 is a bug, hence a throw. */
export function toAmount(value: bigint): Amount {
  if (!isAmount(value)) throw new RangeError(`amount out of u64 range: ${value}`);
  return value;
}

/** Parses a wire amount; null for anything that is not exactly `^(0|[1-9][0-9]*)$` within u64. */
export function parseAmount(s: string): Amount | null {
  if (typeof s !== 'string' || s.length > U64_MAX_DIGITS || !AMOUNT_PATTERN.test(s)) return null;
  const value = BigInt(s);
  return value <= U64_MAX ? (value as Amount) : null;
}

/** The wire form (decimal string) of an amount. */
export function formatAmount(amount: Amount): string {
  return amount.toString(10);
}
