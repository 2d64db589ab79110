/** Which field of a submitted quote differs from the one issued (docs/spec.md §4: QUOTE_MISMATCH names it). */

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The keys from the first difference up to the root, innermost first; null when equal. The path is built only
 * for a difference: an order that sends its quote back unchanged (nearly all of them) builds no strings (issue 56).
 */
function differenceAt(expected: unknown, actual: unknown): (string | number)[] | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [];
    const common = Math.min(expected.length, actual.length);
    for (let i = 0; i < common; i++) {
      const d = differenceAt(expected[i], actual[i]);
      if (d !== null) return (d.push(i), d);
    }
    // The first element removed or added.
    return expected.length === actual.length ? null : [common];
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return [];
    for (const key of Object.keys(expected)) {
      if (!Object.prototype.hasOwnProperty.call(actual, key)) return [key]; // removed
      const d = differenceAt(expected[key], actual[key]);
      if (d !== null) return (d.push(key), d); // changed (at any depth)
    }
    for (const key of Object.keys(actual)) {
      if (!Object.prototype.hasOwnProperty.call(expected, key)) return [key]; // added
    }
    return null;
  }
  // Leaves are strings, numbers or booleans; Object.is keeps types apart (5 vs "5") and -0 apart from 0.
  return Object.is(expected, actual) ? null : [];
}

/**
 * Path of the first field of `submitted` that was added, removed or changed relative to the issued
 * quote, e.g. "amountOut", "feeBreakdown.partnerFee", "privacy.suggestedAmounts[1]", "extraField"; null
 * when identical. Fields are visited in the canonical order, depth first; added fields come after an
 * object's own fields. "$" when `submitted` itself is not an object.
 */
export function firstQuoteDifference(issued: object, submitted: unknown): string | null {
  const d = differenceAt(issued, submitted);
  if (d === null) return null;
  if (d.length === 0) return '$';
  let path = '';
  for (let i = d.length - 1; i >= 0; i--) {
    const key = d[i]!;
    path = typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
  }
  return path;
}
