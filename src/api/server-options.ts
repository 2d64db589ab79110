import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** docs/spec.md §2: a well-formed incoming X-Request-Id is echoed, anything else replaced by a fresh one. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
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
