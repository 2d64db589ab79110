import { HushError } from './errors.ts';

/** 503 CHAIN_UNAVAILABLE (docs/spec.md §6): the chain could not be asked; the failure stays as its cause. */
export function chainUnavailable(cause?: unknown, retryAfterSeconds?: number): HushError<'CHAIN_UNAVAILABLE'> {
  return new HushError('CHAIN_UNAVAILABLE', 'The Solana RPC is unavailable; retry shortly', undefined, { cause, retryAfterSeconds });
}

/** Runs chain reads whose failure answers CHAIN_UNAVAILABLE; a HushError they raise passes as it is. */
export async function readingChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw e instanceof HushError ? e : chainUnavailable(e);
  }
}
