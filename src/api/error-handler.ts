import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HushError, type HushErrorCode } from '../domain/errors.ts';
import { chainUnavailable } from '../domain/chain-unavailable.ts';
import { BODY_LIMIT } from './limits.ts';
import { AMOUNT_PATTERN } from './schemas.ts';
import { ietfRateLimitFields } from './ratelimit-fields.ts';
import { isStoreUnavailable } from '../store/db.ts';
import { ChainUnavailableError, isChainFailure } from '../chain/json-rpc.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/**
 * An error as a plain object for the log, built so that it can never throw: errors are never handed to
 * pino's err serializer, which throws on kit's SolanaError (it tags each error object, and that context is
 * frozen) — and a throwing log line turned a 503 into a 500 FST_ERR_FAILED_ERROR_SERIALIZATION.
 */
export function loggableError(e: unknown, depth = 0): Record<string, unknown> {
  try {
    if (!(e instanceof Error)) return { type: typeof e, message: String(e) };
    const out: Record<string, unknown> = { type: e.name, message: String(e.message), stack: e.stack };
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') out.code = code;
    const status = (e as { status?: unknown; statusCode?: unknown }).status ?? (e as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number') out.status = status;
    if (e.cause !== undefined && depth < 4) out.cause = loggableError(e.cause, depth + 1);
    return out;
  } catch {
    return { type: 'unknown', message: 'error not loggable' };
  }
}

/** Logs an error at a level; a logger that throws loses the line, never the answer. */
function logError(request: FastifyRequest, level: 'warn' | 'error', err: unknown, msg: string, extra?: Record<string, unknown>): void {
  try {
    request.log[level]({ ...extra, err: loggableError(err) }, msg);
  } catch {
    // nothing left to tell it with
  }
}

/** Every chain failure leaves as 503 CHAIN_UNAVAILABLE with Retry-After (docs/spec.md §6), however deep it was wrapped. */
const chainFailure = (cause: unknown) => chainUnavailable(cause, providerRetryAfterS(cause));

/** A provider's Retry-After longer than our default, when the failure carries one (a 429 from the RPC). */
function providerRetryAfterS(e: unknown): number | undefined {
  for (let cur = e, depth = 0; cur && depth < 8; depth++) {
    if (cur instanceof ChainUnavailableError && cur.retryAfterMs !== undefined) return Math.max(5, Math.ceil(cur.retryAfterMs / 1000));
    cur = typeof cur === 'object' && 'cause' in cur ? (cur as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}

/** A bucket for requests no key's bucket covers (app.ts): sets RateLimit-* headers, throws RATE_LIMITED when empty. */
export type AnonymousLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

function send(reply: FastifyReply, request: FastifyRequest, status: number, code: HushErrorCode, message: string, details?: Record<string, unknown>, retryAfter?: number) {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  error.requestId = request.id;
  return reply.code(status).type('application/json; charset=utf-8').send({ success: false, error });
}

function sendHushError(reply: FastifyReply, request: FastifyRequest, err: HushError) {
  // RFC 9110 §11.6.1: a 401 names the scheme it wants.
  if (err.code === 'UNAUTHORIZED') reply.header('www-authenticate', 'Bearer realm="hush"');
  return send(reply, request, err.httpStatus, err.code, err.message, err.details as Record<string, unknown> | undefined, err.retryAfterSeconds);
}

/**
 * Takes a token from the anonymous bucket (setting its RateLimit-* headers): RATE_LIMITED when it was
 * empty. Any other failure of the limiter (its store unreachable) fails open, as the per-key limits do.
 */
export async function takeAnonymousToken(limit: AnonymousLimiter | undefined, request: FastifyRequest, reply: FastifyReply): Promise<HushError | undefined> {
  try {
    await limit?.(request, reply);
    return undefined;
  } catch (e) {
    return e instanceof HushError ? e : undefined;
  }
}

/** Answers after taking a token from the anonymous bucket; an empty bucket answers 429 instead. */
async function counted(limit: AnonymousLimiter | undefined, request: FastifyRequest, reply: FastifyReply, answer: () => unknown) {
  const limited = await takeAnonymousToken(limit, request, reply);
  return limited ? sendHushError(reply, request, limited) : answer();
}

type ValidationError = NonNullable<FastifyError['validation']>[number];

/**
 * A value that matches none of a union's forms (a `privacy` choice, a `mode`): AJV reports each form's first
 * failure, then the union's. A form whose own check failed deeper than the union's value is the one the
 * caller meant: its error is the one to name. Otherwise the union is described by its forms: the constants
 * it allows, or the one key each form needs (the first form's failure alone read "privacy must have required
 * property 'minAnonymitySet'" for a valid choice of maxDelaySeconds).
 */
function unionFailure(errors: readonly ValidationError[]): { field: string; reason: string } | { error: ValidationError } | null {
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (!union) return null;
  const forms = errors.filter((e) => e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`));
  const deeper = forms.find((e) => e.instancePath !== union.instancePath);
  if (deeper) return { error: deeper };
  const field = union.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
  const constants = forms.map((e) => (e.keyword === 'const' ? (e.params as { allowedValue?: unknown }).allowedValue : undefined));
  if (forms.length > 0 && constants.every((c) => c !== undefined)) return { field, reason: `must be one of: ${constants.map((c) => JSON.stringify(c)).join(', ')}` };
  if (forms.length > 0 && forms.every((e) => e.keyword === 'type')) return { field, reason: `must be ${forms.map((e) => (e.params as { type?: string }).type).join(' or ')}` };
  if (forms.length > 0 && forms.every((e) => e.keyword === 'required')) return { field, reason: `must have one of: ${forms.map((e) => (e.params as { missingProperty?: string }).missingProperty).join(', ')}` };
  // Every form refused a key the others need: two forms given at once.
  const extras = forms.map((e) => (e.params as { additionalProperty?: string }).additionalProperty);
  if (forms.length > 0 && extras.every((k) => typeof k === 'string')) return { field, reason: `takes one of ${extras.join(', ')}, not more` };
  return { field, reason: 'matches none of its allowed forms (see the API reference)' };
}

/** Maps Fastify's own failures (parsing, validation, limits) to the stable codes of docs/spec.md §6. */
function fromFastify(err: FastifyError, request?: FastifyRequest): { status: number; code: HushErrorCode; message: string; details?: Record<string, unknown> } {
  if (err.validation) {
    const v = err.validation[0];
    // Validation stops at the first error (allErrors off, as Fastify advises for untrusted input), so every
    // missing field is named here from the schema's own list: the partner fixes them in one go (issue 43).
    if (v?.keyword === 'required' && v.instancePath === '') {
      const missing = missingFields(request);
      if (missing.length > 0) {
        const field = missing[0]!;
        return { status: 400, code: 'INVALID_REQUEST', message: `Invalid request: missing ${missing.join(', ')} (required)`, details: { field, reason: missing.length > 1 ? `required; also missing: ${missing.slice(1).join(', ')}` : 'required' } };
      }
    }
    const union = unionFailure(err.validation);
    if (union && 'field' in union) return { status: 400, code: 'INVALID_REQUEST', message: `Invalid request: ${union.field} ${union.reason}`, details: union };
    const e = union?.error ?? v;
    const params = e?.params as { missingProperty?: string; additionalProperty?: string; pattern?: string } | undefined;
    const at = e?.instancePath ? e.instancePath.replace(/^\//, '').replaceAll('/', '.') : undefined;
    const extra = params?.additionalProperty;
    const missing = e?.keyword === 'required' ? params?.missingProperty : undefined;
    // A field named from the top: `privacy.maxDelaySeconds`, not `maxDelaySeconds`.
    const named = extra ?? missing;
    const field = (named ? (at ? `${at}.${named}` : named) : at) ?? err.validationContext ?? 'body';
    // An amount written as a person reads it ("25.5", "1e6") or as a JSON number is the common mistake: name the fix, not the regex.
    const amountFormat = (e?.keyword === 'pattern' && params?.pattern === AMOUNT_PATTERN) || (e?.keyword === 'type' && field === 'amount');
    const reason = extra ? 'unknown field' : missing ? 'required' : amountFormat ? 'must be an amount in base units: decimal digits only, no sign, decimal point or leading zero (25.5 USDC is "25500000")' : (e?.message ?? 'invalid');
    return { status: 400, code: 'INVALID_REQUEST', message: `Invalid request: ${field} ${reason}`, details: { field, reason } };
  }
  switch (err.statusCode) {
    case 413:
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `Request body exceeds ${BODY_LIMIT} bytes`, details: { limitBytes: BODY_LIMIT } };
    case 415:
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the request body as application/json' };
    case 404:
      return { status: 404, code: 'NOT_FOUND', message: 'Not found' };
    default:
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
        const reason = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError ? 'malformed JSON' : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'empty JSON body' : 'bad request';
        return { status: 400, code: 'INVALID_REQUEST', message: `Invalid request: ${reason}`, details: { reason } };
      }
      return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal error' };
  }
}

/** The one error handler: every failure leaves in the docs/spec.md §2 shape, and nothing internal leaks. */
export function installErrorHandling(app: FastifyInstance, limitAnonymous?: AnonymousLimiter): void {
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    counted(limitAnonymous, request, reply, () => send(reply, request, 404, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`));
  app.setErrorHandler((err: FastifyError | HushError, request, reply) => {
    if (err instanceof HushError && err.code === 'INTERNAL_ERROR' && isChainFailure(err.cause)) err = chainFailure(err.cause);
    if (err instanceof HushError) {
      if (err.httpStatus >= 500) logError(request, 'warn', err.cause ?? err, 'service error', { code: err.code });
      return sendHushError(reply, request, err);
    }
    // No route matched: whatever the body was (empty, malformed, too large, wrong type), the answer is 404.
    if (request.is404) return notFound(request, reply);
    if (isStoreUnavailable(err)) {
      logError(request, 'warn', err, 'store unavailable');
      return send(reply, request, 503, 'SERVICE_UNAVAILABLE', 'The service cannot reach its store; retry shortly', undefined, 1);
    }
    if (isChainFailure(err)) {
      const e = chainFailure(err);
      logError(request, 'warn', err, 'chain unavailable', { code: e.code });
      return sendHushError(reply, request, e);
    }
    const mapped = fromFastify(err as FastifyError, request);
    if (mapped.status >= 500) logError(request, 'error', err, 'unhandled error');
    return send(reply, request, mapped.status, mapped.code, mapped.message, mapped.details);
  });
  app.setNotFoundHandler(notFound);
}

/**
 * Router failures, answered before any hook runs (so the request id is set here): a malformed URL
 * encoding is a bad request; a path parameter over the router's length limit names nothing that exists.
 */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply, limitAnonymous?: AnonymousLimiter): void {
  reply.header('x-request-id', request.id);
  counted(limitAnonymous, request, reply, () =>
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? send(reply, request, 404, 'NOT_FOUND', 'Not found')
      : send(reply, request, 400, 'INVALID_REQUEST', 'Invalid request: malformed URL', { reason: 'malformed URL' }),
  ).catch((e: unknown) => logError(request, 'error', e, 'could not answer a malformed URL'));
}

/** How long an answer the HTTP parser forced waits for the rate-limit store. */
const BUCKET_WAIT_MS = 250;

/** A token from the bucket of a connection's address: the RateLimit-* values, and whether it was empty. */
export type ConnectionBucket = (address: string) => Promise<{ limit: number; remaining: number; resetS: number; refused: boolean }>;

/**
 * HTTP-level failures before there is a request (headers too large, a malformed request line or header,
 * a request timeout): the docs/spec.md §2 shape with a fresh request id, then the connection closes, as Node's own
 * handler does. Written by hand because Fastify's default answers in its own shape. docs/spec.md §7 puts
 * RateLimit-* on every response, so a token comes from the connection address's bucket (its headers were
 * never read, so no proxy can be trusted here); an empty bucket makes it 429 with Retry-After.
 */
export function clientErrorAnswerer(ports: { clock: Clock; random: Random }, bucket?: ConnectionBucket): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  // Node reports the error again for every chunk that still arrives on the socket: one answer, one token.
  const answering = new WeakSet<Duplex>();
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed || answering.has(socket)) return;
    answering.add(socket);
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
    // A limiter store that does not answer promptly fails open, as the plugin's do (no headers then).
    const timeout = new Promise<null>((resolve) => ports.clock.after(BUCKET_WAIT_MS, () => resolve(null)));
    void (bucket ? Promise.race([bucket(address).catch(() => null), timeout]) : Promise.resolve(null)).then((b) => {
      const requestId = ports.random.uuid();
      const reason = err.code === 'HPE_HEADER_OVERFLOW' ? 'request headers too large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request timeout' : 'malformed HTTP request';
      const limited = b?.refused === true;
      const error = limited
        ? { code: 'RATE_LIMITED', message: 'Too many malformed requests from this address; slow down', requestId }
        : { code: 'INVALID_REQUEST', message: `Invalid request: ${reason}`, details: { reason }, requestId };
      const body = JSON.stringify({ success: false, error });
      const fields = b ? ietfRateLimitFields(b.limit, b.remaining, b.resetS) : null;
      const rateHeaders = b && fields ? `RateLimit-Limit: ${b.limit}\r\nRateLimit-Remaining: ${b.remaining}\r\nRateLimit-Reset: ${b.resetS}\r\nRateLimit-Policy: ${fields.policy}\r\nRateLimit: ${fields.state}\r\n` : '';
      const retryAfter = limited ? `Retry-After: ${Math.max(1, b.resetS)}\r\n` : '';
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${limited ? '429 Too Many Requests' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${rateHeaders}${retryAfter}Connection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(err);
    });
  };
}

/** The body's required fields that are absent, in the schema's order. */
function missingFields(request: FastifyRequest | undefined): string[] {
  const schema = (request?.routeOptions?.schema as { body?: { required?: unknown } } | undefined)?.body;
  const body = request?.body;
  if (!Array.isArray(schema?.required) || typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  return (schema.required as string[]).filter((k) => !(k in body));
}
