import { timeoutSignalOn, type Clock, type Timer } from '../src/support/clock.ts';

interface Pending {
  at: number;
  /** Order among timers due at the same instant: arrival order, or a seeded draw (the simulator's schedules). */
  order: number;
  fn: () => void;
  everyMs: number | null;
  cancelled: boolean;
}

/**
 * A clock that moves only when told: the simulator's scheduler and the tests' clock. Its timers run when time
 * is moved past them (`advance`, `set`, `runNext`), in time order, each at its own instant; nothing runs on the
 * wall clock. Timers due at the same instant run in the order they were set, or, given `ties`, in an order
 * drawn from it: the simulator explores interleavings by its seed.
 */
export class VirtualClock implements Clock {
  private readonly heap: Pending[] = [];
  private arrivals = 0;
  /** Timers set in all (the simulator's sign that something happened). */
  timersSet = 0;

  constructor(
    private at = Date.UTC(2026, 0, 1),
    private readonly ties?: () => number,
  ) {}

  now(): number {
    return this.at;
  }

  date(): Date {
    return new Date(this.at);
  }

  monotonic(): number {
    return this.at;
  }

  // Whole milliseconds, as a real clock's now() reads (Date.now()): a fractional delay would leave the time fractional.
  after(ms: number, fn: () => void): Timer {
    return this.push(this.at + Math.max(0, Math.ceil(ms)), fn, null);
  }

  every(ms: number, fn: () => void): Timer {
    const every = Math.max(1, Math.ceil(ms));
    return this.push(this.at + every, fn, every);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        t.cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const t = this.after(ms, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  timeout(ms: number): AbortSignal {
    return timeoutSignalOn(this, ms);
  }

  /** Timers not yet run nor cancelled. */
  get pending(): number {
    let n = 0;
    for (const p of this.heap) if (!p.cancelled) n++;
    return n;
  }

  /** When the soonest pending timer is due, or null when none is. */
  nextAt(): number | null {
    this.dropCancelled();
    return this.heap[0]?.at ?? null;
  }

  /**
   * Runs the soonest timer if it is due at or before `limit`, moving the time to its instant first; false when
   * none is. Its callback runs synchronously: what it starts asynchronously is the caller's to await.
   */
  runNext(limit = Number.POSITIVE_INFINITY): boolean {
    this.dropCancelled();
    const top = this.heap[0];
    if (!top || top.at > limit) return false;
    this.pop();
    if (top.at > this.at) this.at = top.at;
    if (top.everyMs !== null) {
      top.at = this.at + top.everyMs;
      top.order = this.nextOrder();
      this.insert(top);
    }
    top.fn();
    return true;
  }

  /** Moves the time to `ms` (never backwards), running every timer due on the way, each at its instant. */
  set(ms: number): void {
    while (this.runNext(ms));
    if (ms > this.at) this.at = ms;
  }

  advance(ms: number): void {
    this.set(this.at + ms);
  }

  private push(at: number, fn: () => void, everyMs: number | null): Timer {
    this.timersSet++;
    const p: Pending = { at, order: this.nextOrder(), fn, everyMs, cancelled: false };
    this.insert(p);
    return { cancel: () => void (p.cancelled = true) };
  }

  private nextOrder(): number {
    return this.ties ? this.ties() : this.arrivals++;
  }

  private dropCancelled(): void {
    while (this.heap[0]?.cancelled) this.pop();
  }

  // A binary heap on (at, order).
  private less(a: Pending, b: Pending): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
  }

  private insert(p: Pending): void {
    const h = this.heap;
    h.push(p);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): Pending | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
