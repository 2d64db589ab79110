import { Counter, Histogram } from 'prom-client';
import { ChainUnavailableError } from './json-rpc.ts';
import { SETTLEMENT_LANE, type LaneContext, type RpcLane } from './rpc-lane.ts';
import type { Clock } from '../support/clock.ts';

/** Backoff after a 429 that names no Retry-After: doubled per refusal in a row, up to the cap. */
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;

export type RpcOutcome = 'ok' | 'rate_limited' | 'http_error' | 'unreachable';

/**
 * The API lane's share of the rate while the settlement lane has demand (a call of it queued or sent in
 * the last SETTLEMENT_ACTIVE_MS); with none, the API lane may use the whole rate. See docs/decisions.md.
 */
const API_SHARE = 0.5;
/**
 * The API lane's floor while settlement keeps its own queue full: strict priority would starve partners'
 * requests (503 after the RPC timeout) through a long settlement burst; a fifth of the rate still leaves
 * settlement four fifths.
 */
const API_FLOOR = 0.2;
const SETTLEMENT_ACTIVE_MS = 1_000;

interface Waiter {
  calls: number;
  lane: RpcLane;
  resolve(): void;
  reject(e: unknown): void;
  /** Removes its abort listeners and timer. */
  release(): void;
}

/**
 * The one request budget of a process's RPC calls (HUSH_RPC_MAX_RPS): a token bucket refilled at
 * maxRps with a burst of one second's worth, where a batch costs one token per call in it, taken in two
 * lanes (rpc-lane.ts). The settlement lane is served first, in order of arrival; the API lane, also in
 * order, gets what settlement leaves: while settlement has demand, at most API_SHARE of the rate and never
 * the part of the bucket kept for settlement, so a partner's flood of reads neither starves nor even
 * queues payouts and deposit confirmation. A caller that gives up (its
 * signal, or its HTTP request closed) leaves the queue and takes no token; an API call that waits longer
 * than giveUpMs is refused as ChainUnavailableError (503 to the partner). A 429 pauses every caller
 * until the provider's Retry-After (or an exponential backoff).
 * Written by hand: weighted takes, lanes and a pause shared by all callers are one small mechanism here,
 * which p-throttle (no shared pause) and rate-limiter-flexible's queue (fixed windows, no pause) do not express.
 */
export class RpcBudget {
  /** RPC calls by method and outcome (each call of a batch counts); registered by /metrics. */
  readonly requests = new Counter({ name: 'hush_rpc_requests_total', help: 'Solana RPC calls by method and outcome (each call of a batch counts)', labelNames: ['method', 'outcome'] as const, registers: [] });
  /**
   * How long calls waited for their turn, by lane: settlement's must stay short however the API lane is
   * flooded (an operator's first question when payouts slow down, and chain-budget-lanes.test.ts's).
   */
  readonly waits = new Histogram({
    name: 'hush_rpc_budget_wait_seconds',
    help: 'Time RPC calls waited for a turn in the request budget (HUSH_RPC_MAX_RPS), by lane',
    labelNames: ['lane'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  });
  private tokens: number;
  /** The API lane's own bucket (API_SHARE of the rate and burst), drawn on while settlement has demand. */
  private apiTokens: number;
  private readonly apiRps: number;
  /** The API lane's floor (API_FLOOR of the rate), drawn on only while settlement calls are queued too. */
  private floorTokens: number;
  private readonly floorRps: number;
  private refilledAt: number;
  private settlementAt = -Infinity;
  private pausedUntil = 0;
  private refusedInARow = 0;
  private readonly queues: Record<RpcLane, Waiter[]> = { settlement: [], api: [] };
  /** Ends the pump's sleep until the next turn (a new turn, or one granted sooner, replaces it). */
  private sleeping: AbortController | null = null;

  /**
   * `maxRps` 0 or less: no budget, only 429s are honoured. `giveUpMs`: how long in all a request refused
   * with 429 is tried again before its caller hears of it, and how long an API call waits for its turn
   * (the RPC timeout: an API answer never waits longer).
   */
  constructor(
    readonly maxRps: number,
    private readonly giveUpMs: number,
    /** Where turns, pauses and waits are timed. */
    private readonly clock: Clock,
  ) {
    this.refilledAt = clock.now();
    this.tokens = Math.max(1, maxRps);
    this.apiRps = maxRps * API_SHARE;
    this.apiTokens = this.apiRps;
    this.floorRps = maxRps * API_FLOOR;
    // Earned while the API waits, not banked at start: settlement still goes first at the head of a burst.
    this.floorTokens = 0;
  }

  /** Waits until `calls` calls may go out in `lane`; a caller whose signal (either of them) aborts leaves the queue. */
  take(calls: number, signal?: AbortSignal, lane: RpcLane = 'settlement', laneSignal?: AbortSignal): Promise<void> {
    const signals = [signal, laneSignal].filter((s): s is AbortSignal => s !== undefined);
    const gone = signals.find((s) => s.aborted);
    if (gone) return Promise.reject(gone.reason);
    const queuedAt = this.clock.now();
    return new Promise<void>((resolve, reject) => {
      const cleanups: (() => void)[] = [];
      const granted = () => {
        this.waits.observe({ lane }, (this.clock.now() - queuedAt) / 1000);
        resolve();
      };
      const w: Waiter = { calls, lane, resolve: granted, reject, release: () => cleanups.forEach((c) => c()) };
      for (const s of signals) {
        const abort = () => this.drop(w, s.reason);
        s.addEventListener('abort', abort, { once: true });
        cleanups.push(() => s.removeEventListener('abort', abort));
      }
      if (w.lane === 'api' && this.giveUpMs > 0) {
        const timer = this.clock.after(this.giveUpMs, () => this.drop(w, new ChainUnavailableError(`no turn in the RPC request budget within ${this.giveUpMs} ms`)));
        cleanups.push(() => timer.cancel());
      }
      this.queues[w.lane].push(w);
      this.pump();
    });
  }

  /** Calls waiting for a turn, by lane. */
  waiting(): Record<RpcLane, number> {
    return { settlement: this.queues.settlement.length, api: this.queues.api.length };
  }

  private drop(w: Waiter, reason: unknown): void {
    const queue = this.queues[w.lane];
    const at = queue.indexOf(w);
    if (at < 0) return;
    queue.splice(at, 1);
    w.release();
    w.reject(reason);
    if (at === 0) this.pump();
  }

  /** Grants every turn that can go now, then sleeps until the next one could. */
  private pump(): void {
    this.sleeping?.abort();
    this.sleeping = null;
    for (;;) {
      const high = this.queues.settlement[0];
      const low = this.queues.api[0];
      if (!high && !low) return;
      const now = this.clock.now();
      if (now < this.pausedUntil) return this.wakeIn(this.pausedUntil - now);
      this.refill(now);
      // The API lane's floor: its turn although settlement is queued.
      const floorTurn = !!high && !!low && this.floorTokens >= Math.min(low.calls, this.floorRps) && waitMs(low.calls, this.tokens, this.maxRps) === 0;
      let wait: number;
      if (floorTurn) {
        wait = 0;
      } else if (high) {
        wait = waitMs(high.calls, this.tokens, this.maxRps);
      } else {
        wait = waitMs(low!.calls, this.tokens, this.maxRps);
        const busyFor = this.settlementAt + SETTLEMENT_ACTIVE_MS - now;
        if (busyFor > 0) {
          // Settlement has demand: the API lane leaves it its part of the bucket (so it finds a token at once)
          // and stays within its own share of the rate, until settlement has been quiet for a while.
          const need = Math.min(low!.calls, this.apiRps);
          const share = Math.max(waitMs(this.maxRps - this.apiRps + need, this.tokens, this.maxRps), waitMs(need, this.apiTokens, this.apiRps));
          wait = Math.max(wait, Math.min(share, busyFor));
        }
      }
      if (wait > 0) return this.wakeIn(wait);
      const w = (floorTurn ? low : high ?? low)!;
      this.queues[w.lane].shift();
      if (this.maxRps > 0) {
        // A batch larger than the bucket goes out once it is full, leaving a debt the next callers wait off.
        this.tokens -= w.calls;
        if (w.lane === 'api') {
          this.apiTokens = Math.max(0, this.apiTokens - w.calls);
          this.floorTokens = Math.max(0, this.floorTokens - w.calls);
        }
      }
      if (w.lane === 'settlement') this.settlementAt = now;
      w.release();
      w.resolve();
    }
  }

  private refill(now: number): void {
    const seconds = (now - this.refilledAt) / 1000;
    this.tokens = Math.min(this.maxRps, this.tokens + seconds * this.maxRps);
    this.apiTokens = Math.min(this.apiRps, this.apiTokens + seconds * this.apiRps);
    this.floorTokens = Math.min(this.floorRps, this.floorTokens + seconds * this.floorRps);
    this.refilledAt = now;
  }

  /** A sleep, not a timer: callers await their turn, so the wait keeps the process alive as theirs. */
  private wakeIn(ms: number): void {
    const wait = (this.sleeping = new AbortController());
    void this.clock.sleep(Math.max(1, ms), wait.signal).then(() => {
      if (wait.signal.aborted) return;
      this.sleeping = null;
      this.pump();
    });
  }

  /** A 429: nobody sends until the provider's Retry-After, or an exponential backoff when it named none. */
  refused(retryAfterMs: number | undefined): number {
    this.refusedInARow++;
    const wait = retryAfterMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (this.refusedInARow - 1));
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + wait);
    this.pump();
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
  async run<T>(methods: readonly string[], request: () => Promise<T>, signal?: AbortSignal, lane: LaneContext = SETTLEMENT_LANE): Promise<T> {
    const started = this.clock.now();
    for (;;) {
      await this.take(methods.length, signal, lane.lane, lane.signal);
      try {
        const out = await request();
        this.count(methods, 'ok');
        return out;
      } catch (e) {
        const status = e instanceof ChainUnavailableError ? e.status : undefined;
        if (status === 429) {
          this.count(methods, 'rate_limited');
          const wait = this.refused(e instanceof ChainUnavailableError ? e.retryAfterMs : undefined);
          if (this.clock.now() + wait - started <= this.giveUpMs) continue;
        } else {
          this.count(methods, status !== undefined ? 'http_error' : 'unreachable');
        }
        throw e;
      }
    }
  }
}

/** How long until a bucket holding `have` of `rps` per second can pay for `calls` (a batch over the bucket: once it is full). */
function waitMs(calls: number, have: number, rps: number): number {
  if (rps <= 0) return 0;
  const need = Math.min(calls, rps);
  return have >= need ? 0 : Math.ceil(((need - have) / rps) * 1000);
}
