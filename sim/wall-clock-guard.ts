/**
 * Hush reads time only from its clock port (docs/decisions.md, "Time is a port"): a wall-clock read in its code
 * makes a seed's run depend on the machine it ran on, and in production on a clock nobody can move in a test.
 * While a run lasts, `Date.now` notes the first caller that is Hush's own code, and the run's checks report it
 * (issue 86). The caller is read from one stack frame, so the watch costs little on the ~3,000 reads a simulated
 * second of the libraries' own (PGlite, Fastify), which are not Hush's business.
 */

/** Hush's files allowed the wall clock: the real clock port itself, and a temporary file's unique name. */
const ALLOWED = ['/src/support/clock.ts', '/src/store/pglite-template.ts'];

export interface WallClockWatch {
  /** The first read of the wall clock from Hush's code (its stack frame), or null. */
  first(): string | null;
  stop(): void;
}

export function watchWallClock(): WallClockWatch {
  const real = Date.now;
  let first: string | null = null;
  const holder: { stack?: string } = {};
  const watched = function now(): number {
    if (first === null) {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 1;
      Error.captureStackTrace(holder, watched);
      Error.stackTraceLimit = limit;
      const caller = holder.stack?.split('\n')[1]?.trim() ?? '';
      if (caller.includes('/src/') && !ALLOWED.some((a) => caller.includes(a))) first = caller;
    }
    return real();
  };
  Date.now = watched;
  return {
    first: () => first,
    stop() {
      if (Date.now === watched) Date.now = real;
    },
  };
}
