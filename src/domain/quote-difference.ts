/** Which field of a submitted quote differs from the one issued (docs/spec.md §4: QUOTE_MISMATCH names it). */

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function differenceAt(expected: unknown, actual: unknown, path: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return path;
    const common = Math.min(expected.length, actual.length);
    for (let i = 0; i < common; i++) {
      const d = differenceAt(expected[i], actual[i], join(path, i));
      if (d !== null) return d;
    }
    // The first element removed or added.
    return expected.length === actual.length ? null : join(path, common);
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return path;
    for (const key of Object.keys(expected)) {
      const sub = join(path, key);
      if (!Object.prototype.hasOwnProperty.call(actual, key)) return sub; // removed
      const d = differenceAt(expected[key], actual[key], sub);
      if (d !== null) return d; // changed (at any depth)
    }
    for (const key of Object.keys(actual)) {
      if (!Object.prototype.hasOwnProperty.call(expected, key)) return join(path, key); // added
    }
    return null;
  }
  // Leaves are strings, numbers or booleans; Object.is keeps types apart (5 vs "5") and -0 apart from 0.
  return Object.is(expected, actual) ? null : path;
}

/**
 * Path of the first field of `submitted` that was added, removed or changed relative to the issued
 * quote, e.g. "amountOut", "feeBreakdown.partnerFee", "privacy.suggestedAmounts[1]", "extraField"; null
 * when identical. Fields are visited in the canonical order, depth first; added fields come after an
 * object's own fields. "$" when `submitted` itself is not an object.
 */
export function firstQuoteDifference(issued: object, submitted: unknown): string | null {
  const d = differenceAt(issued, submitted, '');
  return d === '' ? '$' : d;
}
