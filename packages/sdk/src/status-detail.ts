import type { StatusRecord } from './types.ts';

/**
 * What a status adds beyond its name, for a line a person reads: the payouts (and the set a private one
 * went out with), the refund or the reason, and while a private payout is held, when it goes at the latest.
 */
export function statusDetail(s: StatusRecord, now = Date.now()): string {
  const { privacy } = s;
  if (s.status === 'completed') {
    const set = privacy.releasedWith !== null ? ` (released with its class: ${privacy.releasedWith} payouts, after ${privacy.heldSeconds} s)` : '';
    return `payout ${s.payouts.map((p) => p.signature).join(', ')}${set}`;
  }
  if (s.refund) return `refund ${s.refund.signature} (${s.refund.reason})`;
  if (s.failureReason) return `(${s.failureReason})`;
  if (privacy.releaseBy) {
    const left = Math.max(0, Math.ceil((Date.parse(privacy.releaseBy) - now) / 1000));
    return `held for its class (a private amount): released by ${privacy.releaseBy}, at most ${left} s from now`;
  }
  if (privacy.releasedWith !== null) return `released with its class: ${privacy.releasedWith} payouts`;
  return '';
}
