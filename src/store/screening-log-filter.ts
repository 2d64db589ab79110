/**
 * What the operator may filter the screening log by (docs/spec.md §12, issue 70), turned into the WHERE clauses
 * of one statement (src/store/screening-log-store.ts, `listScreeningLog`). Only the filters given become
 * clauses: a clause `($n IS NULL OR …)` for each absent one would keep PostgreSQL from planning on the filter's
 * index (migration 033), and a generic plan would then read the whole log to fill a page of resolutions.
 */
export const SCREENING_STAGES = ['quote', 'deposit', 'payout', 'refund', 'late', 'fee', 'resolution'] as const;
export const SCREENING_RESULTS = ['clear', 'blocked', 'error', 'release', 'refund', 'freeze'] as const;
export type ScreeningStage = (typeof SCREENING_STAGES)[number];
export type ScreeningResult = (typeof SCREENING_RESULTS)[number];

export interface ScreeningLogFilter {
  /** Entries older than this id (the `next` cursor of the page before). */
  beforeId?: string;
  trackingId?: string;
  address?: string;
  /** The address starts with this (base58). */
  addressPrefix?: string;
  stage?: ScreeningStage;
  result?: ScreeningResult;
  /** Who wrote it, exactly (`hush`, a worker's id, `operator:alice`, `admin-token`). */
  actor?: string;
  actorPrefix?: string;
  /** The partner account: a quote refusal's own, or the account of the entry's order. */
  accountId?: string;
  /** From this time (inclusive) to that one (exclusive), ISO 8601. */
  from?: string;
  to?: string;
}

/**
 * The least string above every string that starts with `prefix`, in code point order (which is UTF-8's byte
 * order, the order of text_pattern_ops): the prefix with its last code point raised by one. `[prefix, bound)`
 * holds exactly the strings that start with it. Null when there is none (a prefix of U+10FFFF only).
 */
export function prefixBound(prefix: string): string | null {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      // UTF-16 surrogates are not characters: the one after U+D7FF is U+E000.
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

/**
 * The clauses (joined by AND, or `true`) for `f` on a row of screening_log aliased `l`, their parameters pushed
 * onto `params` (whose length decides the numbers). The partner filter is not here: it takes two branches
 * (listScreeningLog).
 */
export function logFilterSql(f: ScreeningLogFilter, params: unknown[]): string {
  const clauses: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (f.beforeId !== undefined) clauses.push(`l.id < ${p(f.beforeId)}::bigint`);
  if (f.trackingId !== undefined) clauses.push(`l.tracking_id = ${p(f.trackingId)}`);
  if (f.address !== undefined) clauses.push(`l.address = ${p(f.address)}`);
  if (f.addressPrefix !== undefined) clauses.push(prefixSql('l.address', f.addressPrefix, p));
  if (f.stage !== undefined) clauses.push(`l.stage = ${p(f.stage)}`);
  if (f.result !== undefined) clauses.push(`l.result = ${p(f.result)}`);
  if (f.actor !== undefined) clauses.push(`l.actor = ${p(f.actor)}`);
  if (f.actorPrefix !== undefined) clauses.push(prefixSql('l.actor', f.actorPrefix, p));
  if (f.from !== undefined) clauses.push(`l.at >= ${p(f.from)}::timestamptz`);
  if (f.to !== undefined) clauses.push(`l.at < ${p(f.to)}::timestamptz`);
  return clauses.length > 0 ? clauses.join(' AND ') : 'true';
}

/** `column` starts with `prefix`, as a range the column's text_pattern_ops index can read (migration 033). */
function prefixSql(column: string, prefix: string, p: (v: unknown) => string): string {
  const bound = prefixBound(prefix);
  return bound === null ? `${column} ~>=~ ${p(prefix)}` : `${column} ~>=~ ${p(prefix)} AND ${column} ~<~ ${p(bound)}`;
}
