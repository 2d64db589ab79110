import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Random } from '../support/random.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: docs/spec.md §2, a well-formed incoming X-Request-Id is echoed, anything else replaced by a fresh one. */
export type RequestIdOf = (req: IncomingMessage) => string;

/** The request ids of a listener, fresh ones drawn from `random`. */
export function requestIds(random: Random): RequestIdOf {
  return (req) => {
    const incoming = req.headers['x-request-id'];
    return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : random.uuid();
  };
}

/**
 * Server options that bound how long a request may take to arrive. Node's default request timeout is 0
 * (none): a body trickling in a byte at a time held its connection open forever, with no key needed (an
 * unrouted POST is read to its end before its 404). Node checks its deadlines every
 * `connectionsCheckingInterval` (30 s by default), too coarse for short timeouts.
 */
export function requestDeadlines(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      // Node refuses a headers timeout above the request timeout.
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(requestTimeoutMs / 4))),
    },
  };
}

/** Routes clients and probes call over and over: at debug, so info says what happened, not who polled. */
const REPEATED_ROUTES = new Set(['/transfer/v1/status/:trackingId', '/healthz', '/readyz', '/metrics']);

/**
 * Fastify's per-request records (the server's `logController`): one at completion, with the request, at
 * debug for polls and health checks and at info for the rest; the incoming line only at debug.
 */
export class RequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log[REPEATED_ROUTES.has(request.routeOptions.url ?? '') ? 'debug' : 'info'](fields, 'request completed');
  }
}
