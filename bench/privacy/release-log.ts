/**
 * How a shaped row's classes went out (issue 71): each class's arrivals and each burst its payouts landed in
 * on the chain, in real seconds from the run's start, so a crowd sent in pieces shows where it was cut: a
 * burst while the class was still arriving, or several after its last arrival.
 */
import type { TruthRecord } from './driver.ts';

const classOf = (r: TruthRecord) => `${r.plan.sourceAssetId}>${r.plan.destinationAssetId}:${r.plan.mode}:${r.plan.amount}`;
const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** Lines for the run's log: per class its arrivals and bursts, then how the statuses carried releasedWith. */
export function releaseLog(
  records: TruthRecord[],
  payoutSlot: Map<string, number>,
  spanSlots: number,
  at: { fromSlot: number; slotMs: number; t0: number; c: number },
): string[] {
  // Real ms from the run's start: compressed wall time × c.
  const real = (wallMs: number) => (wallMs - at.t0) * at.c;
  const slotReal = (slot: number) => (slot - at.fromSlot) * at.slotMs * at.c;
  const byClass = new Map<string, TruthRecord[]>();
  for (const r of records) if (r.quoted?.standard) byClass.set(classOf(r), [...(byClass.get(classOf(r)) ?? []), r]);
  const out: string[] = [`  releases (real seconds from the run's start at ${at.t0} ms since epoch, ×${at.c}):`];
  for (const [key, rs] of [...byClass].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const arrivals = rs.flatMap((r) => (r.confirmedAtMs === undefined ? [] : [real(r.confirmedAtMs)])).sort((a, b) => a - b);
    const landed = rs.flatMap((r) => {
      const slot = payoutSlot.get(`${r.recipient}:${r.plan.destinationAssetId}`);
      return slot === undefined ? [] : [slot];
    }).sort((a, b) => a - b);
    const bursts: number[][] = [];
    for (const slot of landed) {
      const last = bursts.at(-1);
      if (last && slot - last.at(-1)! <= spanSlots) last.push(slot);
      else bursts.push([slot]);
    }
    const lastArrival = arrivals.at(-1) ?? NaN;
    const described = bursts.map((b) => {
      const t = slotReal(b[0]!);
      const before = arrivals.filter((a) => a <= t).length;
      return `${b.length} at ${s1(t)} s (${before} confirmed by then${t > lastArrival ? `, ${s1(t - lastArrival)} s after the last` : ''})`;
    });
    const quoted = rs.flatMap((r) => (r.quoted ? [r.quoted.delaySeconds] : [])).sort((a, b) => a - b);
    out.push(`  ${key}: ${rs.length} orders confirmed ${s1(arrivals[0] ?? NaN)}–${s1(lastArrival)} s, quoted delay median ${quoted[Math.floor(quoted.length / 2)] ?? '–'} s; bursts: ${described.join('; ')}`);
  }
  const completed = records.filter((r) => r.status === 'completed' && r.quoted?.standard);
  const missing = completed.filter((r) => r.releasedWith == null);
  const late = completed.filter((r) => r.releasedWithWithCompleted === false);
  // Issue 71: a completed order without its set must say why (release_landing) rather than look uncounted.
  const unexplained = late.filter((r) => !r.releasedWithPendingAtCompleted);
  const lags = completed.flatMap((r) => (r.releasedWithSeenMs !== undefined && r.completedAtMs !== undefined ? [r.releasedWithSeenMs - r.completedAtMs] : [])).sort((a, b) => a - b);
  out.push(
    `  releasedWith: ${completed.length} completed private orders, ${late.length} without it at the first read showing completed (${late.length - unexplained.length} of them saying why: release_landing), ${missing.length} without it when read final` +
      `${missing.length ? ` (${missing.map((r) => r.trackingId).join(', ')})` : ''}; first seen after completed (wall, ≤ poll interval): median ${lags[Math.floor(lags.length / 2)] ?? '–'} ms, max ${lags.at(-1) ?? '–'} ms`,
  );
  return out;
}
