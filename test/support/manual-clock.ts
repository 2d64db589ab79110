import type { Clock } from '../../src/support/clock.ts';

/** A clock the test moves: what Hush decides by time is decided by `set` and `advance`, never by sleeping. */
export class ManualClock implements Clock {
  constructor(private at = Date.now()) {}

  now(): number {
    return this.at;
  }

  date(): Date {
    return new Date(this.at);
  }

  set(ms: number): void {
    this.at = ms;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}
