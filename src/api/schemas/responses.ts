import { Type, type TSchema } from 'typebox';
import { HUSH_ERROR_CODES, hasRetryAfter, httpStatusOf, type HushErrorCode } from '../../domain/errors.ts';
import { header, success } from './fields.ts';

/** On every partner response. */
const PARTNER_HEADERS = {
  'X-Request-Id': header('The incoming X-Request-Id when well formed (1–128 of A–Z a–z 0–9 . _ : -), else a generated UUID; quote it to support'),
  'RateLimit-Limit': header("Requests the key's bucket holds: twice the route's per-second rate (burst)", Type.Integer()),
  'RateLimit-Remaining': header('Requests left in the bucket now', Type.Integer()),
  'RateLimit-Reset': header('Seconds until the bucket is full again', Type.Integer()),
  'RateLimit-Policy': header('IETF RateLimit-Policy: "default";q=<bucket size>;w=2 (the bucket refills from empty in 2 s)'),
  RateLimit: header('IETF RateLimit: "default";r=<remaining>;t=<seconds until full>'),
};
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before retrying', Type.Integer()) };
const WWW_AUTHENTICATE = { 'WWW-Authenticate': header('Bearer realm="hush": the scheme the API key goes in') };

/**
 * A response status as the OpenAPI document shows it: @fastify/swagger reads `description` and
 * `headers` from the response schema; the serializer ignores both.
 */
export function documented<T extends TSchema>(schema: T, description: string, headers: Record<string, TSchema> = {}): T {
  return { ...schema, description, headers: { ...PARTNER_HEADERS, ...headers } };
}

/** The title the document names the error body by; each status's body narrows `error.code` (named-schemas.ts). */
export const ERROR_BODY_TITLE = 'Error';

/** The error body with `error.code` narrowed to the codes one status of one route can carry. */
export function errorBodyWith(codes: readonly HushErrorCode[]) {
  return Type.Object(
    {
      success: success(false),
      error: Type.Object(
        {
          code: Type.Unsafe<HushErrorCode>({
            type: 'string',
            enum: [...codes],
            description: 'Stable code to branch on (the message may change); each code always comes with the same HTTP status',
          }),
          message: Type.String({ description: 'What went wrong and how to fix it, in English, for the developer; not for end users' }),
          details: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: "Machine-readable specifics, fixed per code (e.g. the offending field, an amount's min and max); absent when the code has none" }),
          ),
          requestId: Type.String({ description: 'The X-Request-Id of this answer; quote it to support' }),
        },
        { description: 'The error' },
      ),
    },
    { title: ERROR_BODY_TITLE, description: 'Every error answer has this body: success false and an error with a stable code' },
  );
}

/**
 * The error answers of a route, grouped by status: each documents the codes the route can give with
 * that status (test/support/hush-server.ts holds every test's responses to this), and Retry-After
 * where one of them carries it. Their examples, one per code, are added to the document (named-schemas.ts).
 */
export function errorResponses(codes: readonly HushErrorCode[]): Record<number, ReturnType<typeof errorBodyWith>> {
  const byStatus = new Map<number, HushErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(httpStatusOf(code), [...(byStatus.get(httpStatusOf(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      const ordered = HUSH_ERROR_CODES.filter((c) => group.includes(c));
      const headers = { ...(ordered.some(hasRetryAfter) ? RETRY_AFTER : {}), ...(ordered.includes('UNAUTHORIZED') ? WWW_AUTHENTICATE : {}) };
      return [status, documented(errorBodyWith(ordered), `error.code: ${ordered.join(', ')}`, headers)];
    }),
  );
}

export const STATUS_CACHING = {
  ETag: header('Version of the status record; send it back in If-None-Match'),
  'Cache-Control': header('no-cache: revalidate with If-None-Match'),
};

/** 304 to a matching If-None-Match: no body. */
export const NotModified = documented(Type.Null(), 'The record has not changed since the ETag sent', STATUS_CACHING);
