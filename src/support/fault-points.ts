/**
 * Crash-test switches: with HUSH_FAULT=<point> (and optionally HUSH_FAULT_AFTER=<n>, default 1) the
 * process SIGKILLs itself the n-th time it reaches that point, so tests can prove recovery from a crash
 * at every step of settlement. Inert unless the variable is set.
 */
const counts = new Map<string, number>();

export type FaultPoint =
  | 'deposit-confirmed'
  | 'payout-recorded'
  | 'payout-sent'
  | 'payout-confirmed'
  | 'sweep-recorded'
  | 'sweep-sent'
  | 'refund-recorded'
  | 'funding-confirmed';

export function faultPoint(point: FaultPoint): void {
  if (process.env.HUSH_FAULT !== point) return;
  const n = (counts.get(point) ?? 0) + 1;
  counts.set(point, n);
  if (n >= Number(process.env.HUSH_FAULT_AFTER ?? 1)) process.kill(process.pid, 'SIGKILL');
}
