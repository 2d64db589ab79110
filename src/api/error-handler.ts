import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HushError, type HushErrorCode } from '../domain/errors.ts';
import { BODY_LIMIT } from './limits.ts';

function send(reply: FastifyReply, request: FastifyRequest, status: number, code: HushErrorCode, message: string, details?: Record<string, unknown>, retryAfter?: number) {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  error.requestId = request.id;
  return reply.code(status).type('application/json; charset=utf-8').send({ success: false, error });
}

/** Maps Fastify's own failures (parsing, validation, limits) to the stable codes of SPEC §6. */
function fromFastify(err: FastifyError): { status: number; code: HushErrorCode; message: string; details?: Record<string, unknown> } {
  if (err.validation) {
    const v = err.validation[0];
    const path = v?.instancePath ? v.instancePath.replace(/^\//, '').replaceAll('/', '.') : (v?.params as { missingProperty?: string; additionalProperty?: string } | undefined)?.missingProperty;
    const extra = (v?.params as { additionalProperty?: string } | undefined)?.additionalProperty;
    const field = extra ?? path ?? err.validationContext ?? 'body';
    const reason = extra ? 'unknown field' : (v?.message ?? 'invalid');
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

/** The one error handler: every failure leaves in the SPEC §2 shape, and nothing internal leaks. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | HushError, request, reply) => {
    if (err instanceof HushError) {
      if (err.httpStatus >= 500) request.log.warn({ err: err.cause ?? err, code: err.code }, 'service error');
      return send(reply, request, err.httpStatus, err.code, err.message, err.details as Record<string, unknown> | undefined, err.retryAfterSeconds);
    }
    // No route matched: whatever the body was (empty, malformed, too large, wrong type), the answer is 404.
    if (request.is404) return send(reply, request, 404, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`);
    const mapped = fromFastify(err as FastifyError);
    if (mapped.status >= 500) request.log.error({ err }, 'unhandled error');
    return send(reply, request, mapped.status, mapped.code, mapped.message, mapped.details);
  });
  app.setNotFoundHandler((request, reply) => send(reply, request, 404, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`));
}
