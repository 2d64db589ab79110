import secureJson from 'secure-json-parse';
import type { FastifyInstance } from 'fastify';
import { HushError } from '../domain/errors.ts';
import { BODY_LIMIT } from './limits.ts';
import { firstDuplicateKey } from './duplicate-keys.ts';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** JSON bodies only, parsed safely, an empty body meaning "no body": the partner API's and the admin API's. */
export function installJsonBody(app: FastifyInstance): void {
  // JSON only (docs/spec.md §2): Fastify's built-in text/plain parser would hand a string to the schema (400)
  // instead of refusing the media type (415 UNSUPPORTED_MEDIA_TYPE).
  app.removeContentTypeParser('text/plain');
  // JSON, where an empty body means "no body" (e.g. POST …/refresh): routes that need one fail validation.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (req, raw, done) => {
    // No route: the answer is 404 whatever the body says, so nothing in it is judged (a 415 would also tell a
    // caller without a key more than "not found").
    if (req.is404) return done(null, undefined);
    // Bodies are read as sent: a compressed one is an unsupported media type (RFC 9110 §15.5.16), not bad JSON.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(new HushError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported: send the JSON body uncompressed'), undefined);
    }
    // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset would be read as something else.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(new HushError('UNSUPPORTED_MEDIA_TYPE', `charset=${charset} is not supported: send the JSON body as UTF-8`), undefined);
    }
    // Decoded strictly: a body that is not UTF-8 is refused, not read with U+FFFD in place of its bad bytes
    // (which then reached the answer: Unknown asset "us\uFFFDdc").
    let text: string;
    try {
      text = STRICT_UTF8.decode(raw as Buffer);
    } catch {
      return done(new HushError('INVALID_REQUEST', 'The body is not valid UTF-8', { reason: 'invalid UTF-8' }), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' });
    } catch (e) {
      // Well-formed JSON refused for a prototype key is said so: "malformed" would send the partner hunting for a syntax error.
      if (/prototype property/.test((e as Error).message)) {
        return done(new HushError('INVALID_REQUEST', 'The body has a forbidden key (__proto__ or constructor.prototype)', { reason: 'forbidden key (__proto__ or constructor.prototype)' }), undefined);
      }
      return done(Object.assign(new Error('malformed JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
    }
    const duplicate = firstDuplicateKey(text);
    if (duplicate !== null) {
      return done(new HushError('INVALID_REQUEST', `The key "${duplicate}" appears twice in one object`, { field: duplicate, reason: 'duplicate key' }), undefined);
    }
    done(null, parsed);
  });
}
