/** A positive decimal price as an exact fraction, e.g. "0.00002" → 2/100000. Never a float. */
export interface Price {
  readonly num: bigint;
  readonly den: bigint;
}

export function parsePrice(text: string): Price {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new RangeError(`not a decimal price: "${text}"`);
  const frac = m[2] ?? '';
  const num = BigInt(m[1]! + frac);
  if (num === 0n) throw new RangeError('price must be positive');
  return { num, den: 10n ** BigInt(frac.length) };
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * Converts `units` of asset A (decimals dA, USD price pA) into base units of asset B, rounded up: used
 * for costs Hush charges, so Hush never under-recovers what it pays.
 */
export function convertCeil(units: bigint, from: { price: Price; decimals: number }, to: { price: Price; decimals: number }): bigint {
  const num = units * from.price.num * to.price.den * 10n ** BigInt(to.decimals);
  const den = from.price.den * to.price.num * 10n ** BigInt(from.decimals);
  return ceilDiv(num, den);
}

/** Same conversion rounded down: for amounts Hush delivers, so it never over-delivers. */
export function convertFloor(units: bigint, from: { price: Price; decimals: number }, to: { price: Price; decimals: number }): bigint {
  const num = units * from.price.num * to.price.den * 10n ** BigInt(to.decimals);
  const den = from.price.den * to.price.num * 10n ** BigInt(from.decimals);
  return num / den;
}
