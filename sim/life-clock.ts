import { timeoutSignalOn, type Clock, type Timer } from '../src/support/clock.ts';
import type { VirtualClock } from './virtual-clock.ts';

/**
 * One process's view of the simulator's clock: the same time, but its timers are its own, so that a crash
 * (`kill`) cancels every timer, interval and sleep the process had, as the operating system does with a
 * SIGKILLed process's. After a kill nothing it schedules ever runs: its pending work is simply never resumed.
 */
export class LifeClock implements Clock {
  private readonly timers = new Set<Timer>();
  private dead = false;

  constructor(private readonly clock: VirtualClock) {}

  get alive(): boolean {
    return !this.dead;
  }

  now(): number {
    return this.clock.now();
  }

  date(): Date {
    return this.clock.date();
  }

  monotonic(): number {
    return this.clock.monotonic();
  }

  after(ms: number, fn: () => void): Timer {
    if (this.dead) return { cancel() {} };
    const t: Timer = this.clock.after(ms, () => {
      this.timers.delete(t);
      fn();
    });
    this.timers.add(t);
    return { cancel: () => (t.cancel(), this.timers.delete(t)) };
  }

  every(ms: number, fn: () => void): Timer {
    if (this.dead) return { cancel() {} };
    const t = this.clock.every(ms, fn);
    this.timers.add(t);
    return { cancel: () => (t.cancel(), this.timers.delete(t)) };
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

  /** The process dies: every timer it set is cancelled and it can set no more. */
  kill(): void {
    this.dead = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
  }
}
