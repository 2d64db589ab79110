import type { RpcTransport } from '@solana/kit';
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types';
import type { FetchLike } from '../support/fetch-like.ts';
import { ChainUnavailableError, retryAfterMs } from './json-rpc.ts';
import type { Clock } from '../support/clock.ts';

/**
 * kit's HTTP transport for the Solana RPC, on a given fetch (the simulator's network): the same JSON with
 * u64 values as bigints both ways, a non-2xx answer a ChainUnavailableError with its status and
 * Retry-After. Written here because kit's own transport calls the global fetch and takes no other; with
 * the global fetch (production) Hush keeps kit's transport, whose only difference is that it shares one
 * request among identical concurrent ones.
 */
export function fetchTransport(url: string, fetchFn: FetchLike, clock: Pick<Clock, 'now'>): RpcTransport {
  return (async ({ payload, signal }: { payload: unknown; signal?: AbortSignal }) => {
    const res = await fetchFn(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' },
      body: stringifyJsonWithBigInts(payload),
      signal,
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new ChainUnavailableError(`RPC answered HTTP ${res.status}`, undefined, res.status, retryAfterMs(res.headers.get('retry-after'), clock.now()));
    }
    return parseJsonWithBigInts(await res.text());
  }) as RpcTransport;
}
