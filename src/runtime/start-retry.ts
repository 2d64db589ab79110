import { isChainUnavailable } from '../chain/solana-chain.ts';
import { isStoreUnavailable } from '../store/db.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export interface RetryOptions {
  log: (msg: string) => void;
  /** The waits run on it; `random`, their jitter. */
  clock: Clock;
  random: Random;
  /** First wait; doubled after each failure up to maxMs, with jitter. */
  minMs?: number;
  maxMs?: number;
  /** Stops retrying (the start is abandoned, e.g. the process is shutting down). */
  signal?: AbortSignal;
}

/** A chain or store that cannot be reached right now: worth waiting out, unlike a bug or a refusal. */
function isTransient(e: unknown): boolean {
  return isChainUnavailable(e) || isStoreUnavailable(e);
}

/**
 * Runs a start step until it succeeds, waiting out transient failures with exponential backoff and jitter
 * (a handful of lines, not worth a dependency). Anything else is thrown at once: a start must wait out a
 * flaky chain, never exit on it, yet still fail loudly on a real fault.
 */
export async function retryTransient<T>(what: string, step: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const minMs = opts.minMs ?? 250;
  const maxMs = opts.maxMs ?? 10_000;
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (e) {
      if (!isTransient(e) || opts.signal?.aborted) throw e;
      const waitMs = Math.round(Math.min(maxMs, minMs * 2 ** attempt) * (0.5 + opts.random.float() / 2));
      opts.log(`${what}: ${(e as Error).message}; retrying in ${waitMs} ms (attempt ${attempt + 1})`);
      await opts.clock.sleep(waitMs);
    }
  }
}
