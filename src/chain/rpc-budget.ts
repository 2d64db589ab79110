import { Counter } from 'prom-client';
import { ChainUnavailableError } from './json-rpc.ts';

/** Backoff after a 429 that names no Retry-After: doubled per refusal in a row, up to the cap. */
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;

export type RpcOutcome = 'ok' | 'rate_limited' | 'http_error' | 'unreachable';

/**
 * The one request budget of a process's RPC calls (HUSH_RPC_MAX_RPS): a token bucket refilled at
 * maxRps with a burst of one second's worth, taken in order of arrival, where a batch costs one token per
 * call in it. A 429 pauses every caller until the provider's Retry-After (or an exponential backoff).
 * Written by hand: weighted takes and a pause shared by all callers are one small mechanism here, which
 * p-throttle (no shared pause) and rate-limiter-flexible's queue (fixed windows, no pause) do not express.
 */
export class RpcBudget {
  /** RPC calls by method and outcome (each call of a batch counts); registered by /metrics. */
  readonly requests = new Counter({ name: 'hush_rpc_requests_total', help: 'Solana RPC calls by method and outcome (each call of a batch counts)', labelNames: ['method', 'outcome'] as const, registers: [] });
  private tokens: number;
  private refilledAt = Date.now();
  private pausedUntil = 0;
  private refusedInARow = 0;
  private tail: Promise<void> = Promise.resolve();

  /**
   * `maxRps` 0 or less: no budget, only 429s are honoured. `giveUpMs`: how long in all a request refused
   * with 429 is tried again before its caller hears of it (the RPC timeout: an API answer never waits longer).
   */
  constructor(
    readonly maxRps: number,
    private readonly giveUpMs = 10_000,
  ) {
    this.tokens = Math.max(1, maxRps);
  }

  /** Waits until `calls` calls may go out (FIFO); a caller whose signal aborts stops waiting (its turn still passes). */
  take(calls: number, signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.waitFor(calls));
    this.tail = turn.catch(() => {});
    if (!signal) return turn;
    signal.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      turn.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
  }

  private async waitFor(calls: number): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now < this.pausedUntil) {
        await sleep(this.pausedUntil - now);
        continue;
      }
      if (this.maxRps <= 0) return;
      this.tokens = Math.min(this.maxRps, this.tokens + ((now - this.refilledAt) / 1000) * this.maxRps);
      this.refilledAt = now;
      // A batch larger than the bucket goes out once it is full, leaving a debt the next callers wait off.
      if (this.tokens >= Math.min(calls, this.maxRps)) {
        this.tokens -= calls;
        return;
      }
      await sleep(Math.ceil(((Math.min(calls, this.maxRps) - this.tokens) / this.maxRps) * 1000));
    }
  }

  /** A 429: nobody sends until the provider's Retry-After, or an exponential backoff when it named none. */
  refused(retryAfterMs: number | undefined): number {
    this.refusedInARow++;
    const wait = retryAfterMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (this.refusedInARow - 1));
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
    return wait;
  }

  count(methods: readonly string[], outcome: RpcOutcome): void {
    if (outcome !== 'rate_limited') this.refusedInARow = 0;
    for (const method of methods) this.requests.inc({ method, outcome });
  }

  /**
   * Runs one HTTP request of `methods` within the budget: a 429 is waited out and tried again while that
   * fits in giveUpMs, then handed to the caller as the ChainUnavailableError it is (the worker tries again on
   * its next tick; an API answer is 503); every outcome is counted.
   */
  async run<T>(methods: readonly string[], request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const started = Date.now();
    for (;;) {
      await this.take(methods.length, signal);
      try {
        const out = await request();
        this.count(methods, 'ok');
        return out;
      } catch (e) {
        const status = e instanceof ChainUnavailableError ? e.status : undefined;
        if (status === 429) {
          this.count(methods, 'rate_limited');
          const wait = this.refused(e instanceof ChainUnavailableError ? e.retryAfterMs : undefined);
          if (Date.now() + wait - started <= this.giveUpMs) continue;
        } else {
          this.count(methods, status !== undefined ? 'http_error' : 'unreachable');
        }
        throw e;
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(1, ms)));
}
