import type { ServerResponse } from 'node:http';
import type { RefusalReason } from './connection-log.ts';

/** Seconds a client over a cap is told to wait: its own connections free within a second or so; a full port, a little longer. */
export const OVER_CAP_RETRY_AFTER_S: Record<RefusalReason, number> = { per_address: 1, total: 2 };

/**
 * The answer to a request on a connection over a cap (docs/spec.md §7: an HTTP answer, not a reset): over the
 * client address's cap 429 RATE_LIMITED (its own burst: back off), over the listener's total 503
 * SERVICE_UNAVAILABLE; both with Retry-After and `Connection: close`, in the docs/spec.md §2 error shape. Written
 * by the connection guard before the application sees the request: it costs no key lookup, no route, no store.
 */
export function answerOverCap(res: ServerResponse, reason: RefusalReason, requestId: string): void {
  const error =
    reason === 'per_address'
      ? { code: 'RATE_LIMITED', message: 'Too many connections from this address at once; retry after Retry-After seconds, or reuse fewer connections', details: { reason: 'connections_per_address' }, requestId }
      : { code: 'SERVICE_UNAVAILABLE', message: 'The service is at its connection limit; retry after Retry-After seconds', details: { reason: 'connections_total' }, requestId };
  const body = JSON.stringify({ success: false, error });
  res.shouldKeepAlive = false;
  res.writeHead(reason === 'per_address' ? 429 : 503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    'retry-after': String(OVER_CAP_RETRY_AFTER_S[reason]),
    connection: 'close',
  });
  res.end(body);
}
