/**
 * The clock port: the one place Hush reads the time and waits for it (docs/architecture.md, "Time"). Every
 * reader of "now" and every timer, interval, sleep and timeout in `src` goes through a `Clock` handed down
 * from the runtime: production wires `systemClock`, a test or the simulator (`npm run sim`) a clock it moves
 * itself, so a hold, an expiry, a lease, a retry's back-off or a cache's life is decided by that clock's time,
 * never by sleeping. Nothing falls back to the system clock by default: a part that reads the time takes a
 * clock as a required dependency (test/runtime/clock-port.test.ts scans `src` for any other reader).
 */

/** A pending timer or interval of a clock; cancelling one that already ran (or was cancelled) does nothing. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** The same instant as a Date. */
  date(): Date;
  /**
   * A monotonic reading in milliseconds (fractional), for measuring how long something took (a request's
   * duration, a batch's wait): it never jumps with the wall clock. Only differences between two readings mean
   * anything.
   */
  monotonic(): number;
  /** Runs `fn` once, `ms` from now. It never keeps the process alive on its own. */
  after(ms: number, fn: () => void): Timer;
  /** Runs `fn` every `ms` until cancelled. It never keeps the process alive on its own. */
  every(ms: number, fn: () => void): Timer;
  /**
   * Resolves `ms` from now, or as soon as `signal` aborts (without throwing: the caller reads the signal).
   * Unlike `after`, the wait keeps the process alive: whoever awaits it wants it to end.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A signal that aborts `ms` from now with a TimeoutError, as `AbortSignal.timeout` does on this clock's time. */
  timeout(ms: number): AbortSignal;
}

function timeoutError(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/** The operating system's clock: the one production wires (src/runtime), and no part's default. */
export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
  monotonic: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  every(ms, fn) {
    const t = setInterval(fn, Math.max(1, ms));
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    });
  },
  timeout: (ms) => AbortSignal.timeout(Math.max(0, ms)),
};

/**
 * `timeout` for a clock whose timers are its own (the simulator's, a test's): an AbortController aborted by
 * `after`. Exported for those clocks; systemClock keeps AbortSignal.timeout.
 */
export function timeoutSignalOn(clock: Pick<Clock, 'after'>, ms: number): AbortSignal {
  const c = new AbortController();
  // One reason for every signal: each RPC call's timeout fires long after its answer, and a DOMException (its
  // stack captured) per firing was the simulator's largest single cost.
  clock.after(ms, () => c.abort((sharedTimeout ??= timeoutError())));
  return c.signal;
}

let sharedTimeout: DOMException | undefined;
