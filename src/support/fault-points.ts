/**
 * The named points a crash test stops Hush at: each step of settlement that has recorded something and not
 * yet acted on it, or acted and not yet recorded it. Hush passes each through its `FaultPoints` port; recovery
 * from a crash at every one is proven by the crash tests (a real SIGKILL) and by the simulator (a process that
 * dies there and restarts from the store, `npm run sim`).
 */
export type FaultPoint =
  | 'deposit-confirmed'
  | 'payout-recorded'
  | 'payout-sent'
  | 'payout-confirmed'
  | 'sweep-recorded'
  | 'sweep-sent'
  | 'refund-recorded'
  | 'funding-confirmed';

export interface FaultPoints {
  /** Hush reached `point`: a crash test's process dies here, or goes on. */
  reach(point: FaultPoint): void;
}

/**
 * The process's own switches: with HUSH_FAULT=<point> (and optionally HUSH_FAULT_AFTER=<n>, default 1) the
 * process SIGKILLs itself the n-th time it reaches that point. Inert unless the variable is set.
 */
export function processFaultPoints(env: NodeJS.ProcessEnv = process.env): FaultPoints {
  const counts = new Map<string, number>();
  return {
    reach(point) {
      if (env.HUSH_FAULT !== point) return;
      const n = (counts.get(point) ?? 0) + 1;
      counts.set(point, n);
      if (n >= Number(env.HUSH_FAULT_AFTER ?? 1)) process.kill(process.pid, 'SIGKILL');
    },
  };
}
