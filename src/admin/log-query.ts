/**
 * The screening log's query (docs/spec.md §12, `GET /admin/v1/screening-log` and its CSV export, the admin CLI's
 * `screening-log`): its parameters, what each must be, and the filter they make for the store.
 */
import { Type, type Static } from 'typebox';
import { SCREENING_RESULTS, SCREENING_STAGES, type ScreeningLogFilter } from '../store/screening-log-filter.ts';
import { Base58Prefix, cursorId, IdParam, invalidParam, IsoTime, limitParam, limitWords, Literals, QUERY_WORDS, defined, timeRange } from './query-words.ts';

/** An actor as the log keeps it: `hush`, a worker's id, `operator:<name> (<id>)` (any script), `admin-token`. */
const ActorParam = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });

const filters = {
  before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,18}$' })),
  trackingId: Type.Optional(IdParam),
  address: Type.Optional(IdParam),
  addressPrefix: Type.Optional(Base58Prefix),
  stage: Type.Optional(Literals(SCREENING_STAGES)),
  result: Type.Optional(Literals(SCREENING_RESULTS)),
  actor: Type.Optional(ActorParam),
  actorPrefix: Type.Optional(ActorParam),
  accountId: Type.Optional(IdParam),
  from: Type.Optional(IsoTime),
  to: Type.Optional(IsoTime),
  /** Only the operators' decisions (stage `resolution`): a partner's refused quotes can never push them out of view. */
  decisions: Type.Optional(Literals(['true', 'false'] as const)),
};

/** `GET /admin/v1/screening-log`: a page of at most 1000 (100 by default). */
export const LogQuery = Type.Object({ limit: Type.Optional(limitParam(1000)), ...filters }, { additionalProperties: false });
/** `GET /admin/v1/screening-log.csv`: at most 10,000 rows (the default). */
export const LogExportQuery = Type.Object({ limit: Type.Optional(limitParam(10000)), ...filters }, { additionalProperties: false });
export type LogQuery = Static<typeof LogQuery>;
export type LogExportQuery = Static<typeof LogExportQuery>;

export const LOG_PAGE_WORDS = { ...QUERY_WORDS, limit: limitWords(1000) };
export const LOG_EXPORT_WORDS = { ...QUERY_WORDS, limit: limitWords(10000) };

/** The store's filter for a query that matched its schema; a time off the calendar, or a contradiction, is a 400. */
export function logFilterOf(q: Omit<LogQuery, 'limit'>): ScreeningLogFilter {
  let stage = q.stage;
  if (q.decisions === 'true') {
    if (stage !== undefined && stage !== 'resolution') throw invalidParam('decisions', `are the operators' entries (stage resolution), not stage ${stage}: give one or the other`);
    stage = 'resolution';
  }
  return defined({
    beforeId: cursorId('before', q.before),
    trackingId: q.trackingId,
    address: q.address,
    addressPrefix: q.addressPrefix,
    stage,
    result: q.result,
    actor: q.actor,
    actorPrefix: q.actorPrefix,
    accountId: q.accountId,
    ...timeRange(q.from, q.to),
  });
}
