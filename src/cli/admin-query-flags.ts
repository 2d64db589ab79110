/**
 * The admin CLI's filters (docs/compliance.md): each flag one query parameter of the admin API, so a command sends
 * them as they are over HTTP and checks them in the API's words against the store (src/admin/log-query.ts,
 * src/admin/holds-query.ts). `screening-log` takes the log's, and `--csv`; `holds` takes the queue's; `history` its page.
 */
export type QueryGroup = 'log' | 'holds' | 'history';

/** Flag → query parameter, per group (a boolean flag is `true` when given). */
const GROUPS: Record<QueryGroup, Readonly<Record<string, string>>> = {
  log: {
    limit: 'limit',
    before: 'before',
    'tracking-id': 'trackingId',
    address: 'address',
    'address-prefix': 'addressPrefix',
    stage: 'stage',
    result: 'result',
    actor: 'actor',
    'actor-prefix': 'actorPrefix',
    'account-id': 'accountId',
    from: 'from',
    to: 'to',
    decisions: 'decisions',
  },
  holds: {
    limit: 'limit',
    stage: 'stage',
    result: 'result',
    'account-id': 'accountId',
    from: 'from',
    to: 'to',
    'address-prefix': 'addressPrefix',
    after: 'after',
    'funds-after': 'fundsAfter',
  },
  // The history of resolved holds (src/cli/admin-hold-commands.ts): a page's size, and the previous page's `next`.
  history: { limit: 'limit', before: 'before' },
};
const BOOLEAN = new Set(['decisions', 'csv']);

/** Every filter flag, for node:util's parseArgs. */
export const QUERY_FLAG_OPTIONS: Record<string, { type: 'string' | 'boolean' }> = Object.fromEntries(
  [...new Set([...Object.values(GROUPS).flatMap((g) => Object.keys(g)), 'csv'])].map((f) => [f, { type: BOOLEAN.has(f) ? 'boolean' : 'string' }]),
);

/** How a group's flags read in the help. */
export function queryUsage(group: QueryGroup): string {
  return Object.keys(GROUPS[group]).map((f) => (BOOLEAN.has(f) ? `[--${f}]` : `[--${f} V]`)).join(' ');
}

/**
 * The query parameters the filter flags given in `values` make for a command taking `group` (none: no filters),
 * and `--csv`; a flag the command does not take is the error returned.
 */
export function queryOf(command: string, group: QueryGroup | undefined, csv: boolean, values: Record<string, unknown>): { query: Record<string, string>; csv: boolean } | { error: string } {
  const flags = group ? GROUPS[group] : {};
  const query: Record<string, string> = {};
  for (const flag of Object.keys(QUERY_FLAG_OPTIONS)) {
    const v = values[flag];
    if (v === undefined || v === false || flag === 'csv') continue;
    const param = flags[flag];
    if (param === undefined) return { error: `${command} does not take --${flag}` };
    query[param] = v === true ? 'true' : String(v);
  }
  if (values.csv === true && !csv) return { error: `${command} does not take --csv` };
  return { query, csv: values.csv === true };
}

/** `?a=1&b=2` for a path, or nothing. */
export function queryString(query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query).toString();
  return q ? `?${q}` : '';
}
