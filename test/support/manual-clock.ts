import { VirtualClock } from '../../sim/virtual-clock.ts';
import { systemClock, type Clock } from '../../src/support/clock.ts';

/**
 * A clock the test moves: what Hush decides by time is decided by `set` and `advance`, never by sleeping.
 * Its timers run as the test moves it past them (sim/virtual-clock.ts).
 */
export class ManualClock extends VirtualClock {
  constructor(at = Date.now()) {
    super(at);
  }
}

/**
 * The system's clock with its readings of "now" taken from `now` (a test's variable): for a part that only
 * reads the time, where a test sets what it reads. Its timers, sleeps and timeouts stay the system's.
 */
export function readingClock(now: () => number): Clock {
  return { ...systemClock, now, date: () => new Date(now()) };
}
