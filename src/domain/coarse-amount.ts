/**
 * A public figure derived from pool inventory, rounded down to `digits` significant digits (docs/spec.md §4: no
 * public figure gives exact pool balances). Two digits keep it within 10 % of the truth, so it still
 * guides a partner, while the pools' movements only show when they cross a step of that size.
 */
export function coarseAmount(x: bigint, digits = 2): bigint {
  if (x <= 0n) return 0n;
  const length = x.toString().length;
  if (length <= digits) return x;
  const step = 10n ** BigInt(length - digits);
  return (x / step) * step;
}
