/**
 * The parts the operator's filtered reads share (the screening log, src/admin/log-query.ts; the queue of holds,
 * src/admin/holds-query.ts): the shapes of their query parameters as TypeBox schemas, what each must be in the
 * words a 400 gives (never a regular expression), and the one check a pattern cannot make (a real calendar time).
 * The admin API validates with these schemas; the admin CLI's direct mode with `checkQuery`, in the same words.
 */
import { Type, type TLiteral, type TSchema, type TUnion } from 'typebox';
import Value from 'typebox/value';
import { HushError } from '../domain/errors.ts';

/** An id or address as the admin API takes them: printable ASCII (a NUL cannot reach PostgreSQL text). */
export const IdParam = Type.String({ minLength: 1, maxLength: 64, pattern: '^[!-~]+$' });
/** The start of a Solana address: base58, so `0`, `O`, `I` and `l` are refused rather than matching nothing. */
export const Base58Prefix = Type.String({ minLength: 1, maxLength: 44, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' });
/** An ISO 8601 time with its zone, or a date (midnight UTC); its calendar is checked by `isoTime`. */
export const IsoTime = Type.String({ maxLength: 40, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$' });
/** `limit`: a whole number from 1 to `max` (1000 or 10000), as its digits. */
export const limitParam = (max: 1000 | 10000) => Type.String({ pattern: max === 1000 ? '^([1-9][0-9]{0,2}|1000)$' : '^([1-9][0-9]{0,3}|10000)$' });
/** One of `values` (a 400 lists them). Typed as the union of their literals, which TypeBox cannot infer from a mapped array. */
export const Literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<[TLiteral<T>]>;

const TIME_WORDS = 'must be an ISO 8601 time with its zone (2026-11-24T10:00:00Z) or a date (2026-11-24, midnight UTC)';

/** What each parameter must be, as a 400 says it. */
export const QUERY_WORDS: Readonly<Record<string, string>> = {
  before: 'must be the id of a log entry (the `next` of the page before)',
  trackingId: 'must be 1–64 printable characters, no space',
  address: 'must be 1–64 printable characters, no space',
  accountId: 'must be 1–64 printable characters, no space',
  addressPrefix: 'must be 1–44 base58 characters (no 0, O, I or l)',
  actor: 'must be 1–200 characters, none of them a control character',
  actorPrefix: 'must be 1–200 characters, none of them a control character',
  from: TIME_WORDS,
  to: TIME_WORDS,
  decisions: 'must be true or false',
  after: 'must be the `next.holds` of the page before',
  fundsAfter: 'must be the `next.fundHolds` of the page before',
};

export const limitWords = (max: number) => `must be a whole number from 1 to ${max}`;

/** The error the admin API and the CLI give for one bad parameter. */
export function invalidParam(field: string, reason: string): HushError<'INVALID_REQUEST'> {
  return new HushError('INVALID_REQUEST', `Invalid request: ${field} ${reason}`, { field, reason });
}

/** An AJV or TypeBox error about one parameter given its words (a union keeps its list of allowed values). */
export function worded(e: { instancePath: string; keyword: string; message?: string }, words: Readonly<Record<string, string>>): void {
  const field = e.instancePath.replace(/^\//, '');
  if (words[field] !== undefined && e.keyword !== 'const' && e.keyword !== 'anyOf') e.message = words[field];
}

/** The CLI's check of a query against `schema`, in the admin API's words: the first problem, as a 400 would say it. */
export function checkQuery(schema: TSchema, q: Record<string, unknown>, words: Readonly<Record<string, string>>): void {
  const errors = [...Value.Errors(schema, q)];
  if (errors.length === 0) return;
  const extra = errors.find((e) => e.keyword === 'additionalProperties');
  if (extra) throw invalidParam(String((extra.params as { additionalProperties?: string[] }).additionalProperties?.[0] ?? '?'), 'unknown field');
  const union = errors.find((e) => e.keyword === 'anyOf');
  if (union) {
    const allowed = errors.filter((e) => e.keyword === 'const' && e.instancePath === union.instancePath).map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
    throw invalidParam(union.instancePath.replace(/^\//, ''), `must be one of: ${allowed.join(', ')}`);
  }
  const first = errors[0]!;
  worded(first, words);
  throw invalidParam(first.instancePath.replace(/^\//, ''), first.message ?? 'invalid');
}

/**
 * `value` (which matched IsoTime) as a time PostgreSQL reads the same whatever its session's zone: a date gets
 * midnight UTC. A day, hour or offset the calendar does not have (February 30, 24:00) is a 400, never a 500.
 */
export function isoTime(field: string, value: string): { text: string; ms: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/.exec(value);
  if (!m) throw invalidParam(field, TIME_WORDS);
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const at = new Date(0);
  at.setUTCFullYear(y!, mo! - 1, d!);
  at.setUTCHours(h, mi, s, 0);
  const real = y! >= 1 && at.getUTCFullYear() === y && at.getUTCMonth() === mo! - 1 && at.getUTCDate() === d && at.getUTCHours() === h && at.getUTCMinutes() === mi && at.getUTCSeconds() === s;
  // PostgreSQL reads a zone offset up to ±15:59 (every zone in use is within it): beyond, a store error, a 500.
  const offsetOk = m[9] === undefined || (Number(m[10]) <= 15 && Number(m[11]) <= 59);
  if (!real || !offsetOk) throw invalidParam(field, `is not a time on the calendar (${value})`);
  const offsetMs = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000;
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  return { text: m[4] === undefined ? `${value}T00:00:00Z` : value, ms: at.getTime() - offsetMs + fraction };
}

/** A bigint column's largest id: an id past it names nothing the store holds (cursors here, holds and proposals in hold-answer.ts). */
export const MAX_ID = (1n << 63n) - 1n;

/** A cursor's id (which matched `^[1-9][0-9]{0,18}$`) the store can key: past a bigint it names nothing it could read, a 400. */
export function cursorId(field: string, value: string | undefined): string | undefined {
  if (value !== undefined && BigInt(value) > MAX_ID) throw invalidParam(field, QUERY_WORDS[field] ?? 'is past any id');
  return value;
}

/** `from` and `to` as times, `from` before `to`. */
export function timeRange(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const f = from === undefined ? undefined : isoTime('from', from);
  const t = to === undefined ? undefined : isoTime('to', to);
  if (f && t && f.ms >= t.ms) throw invalidParam('to', 'must be after from');
  return { ...(f ? { from: f.text } : {}), ...(t ? { to: t.text } : {}) };
}

/** A copy of `o` without its undefined values (a filter names only what it filters by). */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
