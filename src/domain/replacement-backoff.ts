/** Failures of one transfer after which it is still replaced at once: most are races (a pool spent meanwhile). */
export const FREE_FAILURES = 3;
const FIRST_WAIT_MS = 30_000;
const MAX_WAIT_MS = 3_600_000;

/**
 * How long after its last attempt a transfer that landed and failed `failed` times waits before the next
 * one. Every failed attempt costs a fee; one that keeps failing (a frozen token account, say) would
 * otherwise cost one every few seconds until an operator stepped in: doubling from 30 s, at most 1 h.
 */
export function replacementDelayMs(failed: number): number {
  if (failed <= FREE_FAILURES) return 0;
  return Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(failed - FREE_FAILURES - 1, 20));
}
