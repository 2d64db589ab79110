import { VirtualClock } from '../../sim/virtual-clock.ts';

/**
 * A clock the test moves: what Hush decides by time is decided by `set` and `advance`, never by sleeping.
 * Its timers run as the test moves it past them (sim/virtual-clock.ts).
 */
export class ManualClock extends VirtualClock {
  constructor(at = Date.now()) {
    super(at);
  }
}
