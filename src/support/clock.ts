/**
 * The clock port: the one place Hush reads "now" (docs/architecture.md, "Time"). The runtime builds the
 * system clock and hands it down to whatever reads the time; a test hands a clock it moves itself, so a
 * hold, an expiry or a cache's life is decided by the test's time, never by sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** The same instant as a Date. */
  date(): Date;
}

/** The operating system's clock: the default everywhere. */
export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
};
