import type { Clock } from './clock.ts';

/**
 * A background refresh every `everyMs` on `clock` (never holding the process open); a failed pass is
 * dropped (the caller keeps its last good state). Returns the stop function.
 */
export function every(clock: Clock, everyMs: number, pass: () => Promise<unknown>): () => void {
  const timer = clock.every(everyMs, () => void pass().catch(() => {}));
  return () => timer.cancel();
}
