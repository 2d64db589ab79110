/**
 * SQL's `now()` as a parameter: the clock port's reading, bound where the text says now() (clocked-db.ts).
 * A statement's text is scanned once (outside string literals, quoted identifiers, dollar-quoted bodies and
 * comments, where a `now()` is not a call and a `$n` not a parameter): each `now()` becomes `$N::timestamptz`,
 * N one past the highest `$n` the text uses, so every now() of one statement reads the same instant, as the
 * server's own did.
 */

export interface NowBound {
  /** The text with every now() replaced by `$N::timestamptz`. */
  text: string;
  /** N: the parameter the clock's reading fills (1-based). */
  param: number;
}

/** Where a `now()` call starts and ends in a text, and the highest `$n` it uses. */
interface Scan {
  calls: { from: number; to: number }[];
  highest: number;
}

const IDENT = /[A-Za-z0-9_$]/;
const NOW_CALL = /^now\s*\(\s*\)/i;
const DOLLAR_TAG = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

function scan(sql: string): Scan {
  const calls: Scan['calls'] = [];
  let highest = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i);
    } else if (c === "'") {
      // E'…' strings escape with a backslash; every string escapes a quote by doubling it.
      i = skipQuoted(sql, i, "'", /[eE]/.test(sql[i - 1] ?? '') && !IDENT.test(sql[i - 2] ?? ''));
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', false);
    } else if (c === '$' && /[0-9]/.test(next ?? '') && !IDENT.test(sql[i - 1] ?? '')) {
      const digits = /^[0-9]+/.exec(sql.slice(i + 1))![0];
      highest = Math.max(highest, Number(digits));
      i += 1 + digits.length;
    } else if (c === '$' && !IDENT.test(sql[i - 1] ?? '') && DOLLAR_TAG.test(sql.slice(i, i + 64))) {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
    } else if ((c === 'n' || c === 'N') && !/[A-Za-z0-9_$."]/.test(sql[i - 1] ?? '')) {
      const call = NOW_CALL.exec(sql.slice(i, i + 32));
      if (call) {
        calls.push({ from: i, to: i + call[0].length });
        i += call[0].length;
      } else i++;
    } else i++;
  }
  return { calls, highest };
}

function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashEscapes && c === '\\') i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return i;
}

/** PostgreSQL's block comments nest. */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return i;
}

/** The text with its now() calls bound to a parameter, or null when it calls none. Pure: see `nowBoundCached`. */
export function bindNow(sql: string): NowBound | null {
  // Most statements never mention now: they are not scanned.
  if (!/now\s*\(/i.test(sql)) return null;
  const { calls, highest } = scan(sql);
  if (calls.length === 0) return null;
  const param = highest + 1;
  let text = '';
  let at = 0;
  for (const call of calls) {
    text += `${sql.slice(at, call.from)}$${param}::timestamptz`;
    at = call.to;
  }
  return { text: text + sql.slice(at), param };
}

/**
 * Distinct texts remembered. Hush's statements are a fixed set, but a few are built per call (lists of
 * varying length): past this many, a text is scanned every time rather than growing the cache for ever.
 */
const MAX_CACHED = 2_048;
const cache = new Map<string, NowBound | null>();

/** `bindNow`, scanned once per distinct text. */
export function nowBoundCached(sql: string): NowBound | null {
  const known = cache.get(sql);
  if (known !== undefined) return known;
  const bound = bindNow(sql);
  if (cache.size < MAX_CACHED) cache.set(sql, bound);
  return bound;
}
