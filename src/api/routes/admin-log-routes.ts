import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HushError } from '../../domain/errors.ts';
import type { AdminApi } from '../deps.ts';
import type { Clock } from '../../support/clock.ts';
import { LOG_EXPORT_WORDS, LOG_PAGE_WORDS, LogExportQuery, LogQuery, logFilterOf } from '../../admin/log-query.ts';
import { LOG_EXPORT_MAX, logCsv, logPage } from '../../admin/screening-log-views.ts';
import { worded } from '../../admin/query-words.ts';

/**
 * A route's query errors in the words of `words` (src/admin/query-words.ts): the error handler names the field
 * and gives its message, so a 400 says what the parameter must be, never the pattern that refused it.
 */
export const inWords = (words: Readonly<Record<string, string>>) => (errors: FastifySchemaValidationError[], dataVar: string) => {
  for (const e of errors) worded(e, words);
  return new Error(`${dataVar} is invalid`);
};

/**
 * What an operator reads of the screening log (docs/spec.md §12, issue 70), on `/admin/v1` behind its
 * authentication (registered by admin-routes.ts, whose hooks it inherits): a page, filtered, with the cursor of
 * the next (`next`: pass it as `before`); and the same filters as a CSV file.
 */
export async function adminLogRoutes(fastify: FastifyInstance, { admin, clock }: { admin: AdminApi; clock: Pick<Clock, 'date'> }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const log = () => {
    if (!admin.screeningLog) throw new HushError('SERVICE_UNAVAILABLE', 'The screening log is not available on this deployment');
    return admin.screeningLog;
  };

  app.get('/screening-log', { schema: { hide: true, querystring: LogQuery }, schemaErrorFormatter: inWords(LOG_PAGE_WORDS) }, async (request) => {
    const limit = Number(request.query.limit ?? 100);
    // One more than shown: whether an older page exists, without a count of the whole log.
    const rows = await log()({ ...logFilterOf(request.query), limit: limit + 1 });
    return { success: true, ...logPage(rows, limit) };
  });

  app.get('/screening-log.csv', { schema: { hide: true, querystring: LogExportQuery }, schemaErrorFormatter: inWords(LOG_EXPORT_WORDS) }, async (request, reply) => {
    const max = Number(request.query.limit ?? LOG_EXPORT_MAX);
    const { csv, next } = logCsv(await log()({ ...logFilterOf(request.query), limit: max + 1 }), max);
    const stamp = clock.date().toISOString().replace(/[-:]|\.\d+/g, '');
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="screening-log-${stamp}.csv"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff');
    // Cut at the limit: where the rest starts, for a program (the file's last record says it to a person).
    if (next !== null) reply.header('x-export-next-before', next);
    return reply.send(csv);
  });
}

