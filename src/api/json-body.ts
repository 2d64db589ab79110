import secureJson from 'secure-json-parse';
import type { FastifyInstance } from 'fastify';
import { HushError } from '../domain/errors.ts';
import { BODY_LIMIT } from './limits.ts';

/** JSON bodies only, parsed safely, an empty body meaning "no body": the partner API's and the admin API's. */
export function installJsonBody(app: FastifyInstance): void {
  // JSON only (docs/spec.md §2): Fastify's built-in text/plain parser would hand a string to the schema (400)
  // instead of refusing the media type (415 UNSUPPORTED_MEDIA_TYPE).
  app.removeContentTypeParser('text/plain');
  // JSON, where an empty body means "no body" (e.g. POST …/refresh): routes that need one fail validation.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    // Bodies are read as sent: a compressed one is an unsupported media type (RFC 9110 §15.5.16), not bad JSON.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(new HushError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported: send the JSON body uncompressed'), undefined);
    }
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(Object.assign(new Error('malformed JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
    }
  });
}
