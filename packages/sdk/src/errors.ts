import type { ErrorCode } from './types.ts';

/**
 * Hush answered with its error body (docs/spec.md §2): branch on `code` (docs/spec.md §6), quote `requestId` to
 * support. `message` is Hush's own words, without the code (issue 53: it repeated it); `String(e)` names both
 * (`HushApiError [QUOTE_EXPIRED]: …`).
 */
export class HushApiError extends Error {
  override readonly name = 'HushApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly requestId: string | undefined,
    readonly details: Record<string, unknown> | undefined,
    /** Seconds, from Retry-After (RATE_LIMITED, ORDER_IN_PROGRESS, 503s). */
    readonly retryAfterS: number | undefined,
  ) {
    super(message);
  }

  override toString(): string {
    return `${this.name} [${this.code}]: ${this.message}`;
  }

  /** The same request may succeed later unchanged. */
  get retryable(): boolean {
    return this.retryAfterS !== undefined || this.status === 503 || this.status === 429;
  }
}

/**
 * The chain refused the deposit, with the cause found and the fix named (issue 43): `BLOCKHASH_EXPIRED` (the
 * transaction's blockhash died before it landed: call `hush.refresh(order)` and sign the new one, or pass
 * `refreshExpired: true` to signAndSend) or `INSUFFICIENT_FUNDS` (the sender lacks the tokens or the SOL for
 * fees and rent; InsufficientFundsError carries the amounts).
 */
export class HushSdkError extends Error {
  override readonly name: string = 'HushSdkError';
  constructor(
    readonly code: 'BLOCKHASH_EXPIRED' | 'INSUFFICIENT_FUNDS',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The connection failed or the answer was not Hush's JSON (a proxy's page, a cut body). */
export class HushTransportError extends Error {
  override readonly name = 'HushTransportError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Retry-After in seconds (given as seconds, or as a date: the seconds from `now` to it). */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export async function toError(response: Response, body: unknown, now = Date.now()): Promise<Error> {
  const e = (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | undefined)?.error;
  if (!e || typeof e.code !== 'string') return new HushTransportError(`HTTP ${response.status} without a Hush error body`, response.status);
  return new HushApiError(
    response.status,
    e.code as ErrorCode,
    typeof e.message === 'string' ? e.message : e.code,
    typeof e.requestId === 'string' ? e.requestId : (response.headers.get('x-request-id') ?? undefined),
    e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
    retryAfterSeconds(response.headers, now),
  );
}
