import type { StatusRecord } from './types.ts';

/** What a status adds beyond its name, for a line a person reads: the payouts, the refund or the reason. */
export function statusDetail(s: StatusRecord): string {
  if (s.status === 'completed') return `payout ${s.payouts.map((p) => p.signature).join(', ')}`;
  if (s.refund) return `refund ${s.refund.signature} (${s.refund.reason})`;
  return s.failureReason ? `(${s.failureReason})` : '';
}
