import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit';
import { globalFetch, type FetchLike } from '../support/fetch-like.ts';

/**
 * The one plain-JSON path to the Solana RPC (batches, the local faucet's methods): the HTTP status is
 * looked at before the body, so a 503 or 429 is a clear, retryable ChainUnavailableError and never a JSON
 * syntax error. kit's client covers the rest (solana-chain.ts); both classify failures the same way.
 */

/**
 * The RPC could not be asked (refused, timed out, a non-2xx answer, a body that is not JSON): the chain is
 * unavailable for now and the call may be retried. A JSON-RPC error answer is NOT this: the chain answered.
 */
export class ChainUnavailableError extends Error {
  override readonly name = 'ChainUnavailableError';
  constructor(
    message: string,
    options?: { cause?: unknown },
    /** HTTP status of the answer, when there was one. */
    readonly status?: number,
    /** How long the provider asked us to wait (Retry-After), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message, options);
  }
}

/** A JSON-RPC error object answered by the chain (for example "Method not found"). */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  constructor(
    readonly method: string,
    readonly code: number | undefined,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

/** True when `e`, or an error it was caused by, says the chain could not be reached. */
export function isChainUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 8; depth++) {
    if (cur instanceof ChainUnavailableError) return true;
    cur = typeof cur === 'object' && 'cause' in cur ? (cur as { cause?: unknown }).cause : undefined;
  }
  return false;
}

/**
 * True when `e`, or an error it was caused by, is a failure of the chain: unreachable, or an error answer
 * of the RPC itself (a JSON-RPC error object, kit's SolanaError for one: codes -32768…-32000), or kit's HTTP error.
 */
export function isChainFailure(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 8; depth++) {
    if (cur instanceof ChainUnavailableError || cur instanceof JsonRpcError) return true;
    if (isSolanaError(cur, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) return true;
    if (isSolanaError(cur)) {
      const code = (cur.context as { __code?: unknown }).__code;
      if (typeof code === 'number' && code >= -32768 && code <= -32000) return true;
    }
    cur = typeof cur === 'object' && 'cause' in cur ? (cur as { cause?: unknown }).cause : undefined;
  }
  return false;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const s = value.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * POSTs one JSON-RPC body (a call or a batch) and returns the parsed reply; every transport failure is a
 * ChainUnavailableError. `now` reads a Retry-After date against the caller's clock.
 */
export async function postJsonRpc(url: string, body: string, signal: AbortSignal, what: string, now: () => number, fetchFn: FetchLike = globalFetch): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchFn(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
  } catch (e) {
    throw new ChainUnavailableError(`${what}: RPC unreachable (${(e as Error).message})`, { cause: e });
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new ChainUnavailableError(`${what}: RPC answered HTTP ${res.status}`, undefined, res.status, retryAfterMs(res.headers.get('retry-after'), now()));
  }
  try {
    return await res.json();
  } catch (e) {
    throw new ChainUnavailableError(`${what}: RPC answer unreadable (${(e as Error).message})`, { cause: e });
  }
}

/** The result of a single call's reply; a JSON-RPC error answer becomes a JsonRpcError. */
export function resultOf<T>(method: string, reply: unknown): T {
  const r = reply as { result?: T; error?: { code?: number; message?: string } } | null;
  if (r && typeof r === 'object' && r.error) throw new JsonRpcError(method, r.error.code, r.error.message ?? 'error');
  if (!r || typeof r !== 'object' || r.result === undefined) throw new ChainUnavailableError(`${method}: RPC answer has no result`);
  return r.result;
}
