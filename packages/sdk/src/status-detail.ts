import type { StatusRecord } from './types.ts';

/**
 * What a status adds beyond its name, for a line a person reads: the payouts (and the set a private one
 * went out with), the refund or the reason, and while a private payout is held, when it goes at the latest.
 */
export function statusDetail(s: StatusRecord, now = Date.now()): string {
  const { privacy } = s;
  const held = privacy.heldSeconds !== null ? `, after ${privacy.heldSeconds} s` : '';
  const set = (n: number) => `${n} payout${n === 1 ? '' : 's'}`;
  if (s.status === 'completed') {
    const released =
      privacy.releasedWith !== null
        ? ` (released with its class: ${set(privacy.releasedWith)}${held})`
        : privacy.releasedWithPending === 'release_landing'
          ? ` (released with its class${held}; its set is counted once the release has landed)`
          : '';
    return `payout ${s.payouts.map((p) => p.signature).join(', ')}${released}`;
  }
  if (s.refund) return `refund ${s.refund.signature} (${s.refund.reason})`;
  if (s.failureReason) return `(${s.failureReason})`;
  if (privacy.releaseBy) return heldFor(privacy.releaseBy, now);
  // Released (heldSeconds is set from the release on) but not yet sent. Its set (releasedWith) is counted on
  // the chain once the release has landed, so before that the line says it was released, without a number.
  if (privacy.releasedWith !== null || privacy.heldSeconds !== null) {
    // The payout is due at the deposit's confirmation plus its hold (heldSeconds), a moment that may still be
    // ahead, so the line says when it is due rather than "after".
    const confirmedAt = s.deposit?.confirmedAt ? Date.parse(s.deposit.confirmedAt) : NaN;
    const dueIn = privacy.heldSeconds !== null && Number.isFinite(confirmedAt) ? Math.ceil((confirmedAt + privacy.heldSeconds * 1000 - now) / 1000) : null;
    const when = dueIn === null ? '' : dueIn > 0 ? `, payout due in ~${dueIn} s` : ', payout going out';
    return `released for privacy with its class${privacy.releasedWith !== null ? `: ${set(privacy.releasedWith)}` : ''}${when}`;
  }
  return '';
}

/** A held private payout: its latest release moment and the seconds until it. */
export function heldFor(releaseBy: string, now = Date.now()): string {
  const left = Math.max(0, Math.ceil((Date.parse(releaseBy) - now) / 1000));
  return `held for privacy: released by ${releaseBy} (in ~${left} s)`;
}
