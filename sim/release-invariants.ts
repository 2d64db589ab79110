import type { StatusRecord } from './final-statuses.ts';
import { InvariantBroken, type OrderTruth } from './users.ts';

/** A completed standard order as its status shows it at the end: when its deposit was confirmed and its payout due. */
interface Member {
  t: OrderTruth;
  confirmedAt: number;
  dueAt: number | null;
  /** It may hold out of a release for a bigger set (privacy.minAnonymitySet), or screening held it: no rule binds it. */
  free: boolean;
}

/**
 * Every completed order of a standard amount went out in a release of its class, and no release of its class left it
 * behind (issue 86). Read as the partner reads it, from the status API (`statusOf`), after the run has drained:
 * - its status names the release it landed with (`privacy.releasedWith`, docs/spec.md §9): a member left out of
 *   every release goes out alone at its deadline, and its status never names one;
 * - a member whose deposit was confirmed before another's, and whose payout was due more than a release's span
 *   (`spanMs`: how far apart two payouts of one release may be due) after that other's, was waiting when that
 *   other's release was decided (which came after the other's confirmation) and was not in it. Releases of a class
 *   never overlap (each waits for the last to clear), so the two were in different releases, and the later one was
 *   not the first that could take it. Only a member that asked for a bigger set may hold out, and one screening held
 *   waited for its operator instead.
 */
export function checkEveryMemberReleased(
  truths: readonly OrderTruth[],
  statusOf: (t: OrderTruth) => StatusRecord | null,
  forgotten: (t: OrderTruth) => boolean,
  spanMs: number,
): number {
  const byClass = new Map<string, Member[]>();
  for (const t of truths) {
    if (t.trackingId === null || t.last?.status !== 'completed' || t.quote?.privacy?.standard !== true || forgotten(t)) continue;
    const order = statusOf(t);
    if (!order) continue;
    if (order.privacy.releasedWith === null) {
      throw new InvariantBroken('every member goes out in a release', `${t.trackingId} (session #${t.session.id}) completed, and its status names no release (releasedWithPending ${order.privacy.releasedWithPending})`);
    }
    const confirmed = order.history.find((h) => h.status === 'deposit_confirmed');
    if (!confirmed) continue;
    const confirmedAt = Date.parse(confirmed.at);
    const free = (t.session.privacy !== null && 'minAnonymitySet' in t.session.privacy) || order.history.some((h) => h.status === 'held');
    const key = `${t.session.source}>${t.session.destination}:${t.quote.mode}:${t.quote.mode === 'exact_out' ? t.quote.amountOut : t.quote.amountIn}`;
    const members = byClass.get(key) ?? [];
    members.push({ t, confirmedAt, dueAt: order.privacy.heldSeconds === null ? null : confirmedAt + order.privacy.heldSeconds * 1000, free });
    byClass.set(key, members);
  }
  let checked = 0;
  for (const members of byClass.values()) {
    for (const x of members) {
      checked++;
      if (x.free || x.dueAt === null) continue;
      // heldSeconds is rounded to a second: two seconds of slack.
      const left = members.find((m) => m !== x && m.dueAt !== null && m.confirmedAt > x.confirmedAt + 1_000 && x.dueAt! > m.dueAt + spanMs + 2_000);
      if (left) {
        throw new InvariantBroken(
          'every member goes out in a release',
          `${x.t.trackingId} (session #${x.t.session.id}), confirmed ${new Date(x.confirmedAt).toISOString()} and due ${new Date(x.dueAt!).toISOString()}, was left behind by the release of ${left.t.trackingId}, confirmed after it at ${new Date(left.confirmedAt).toISOString()} and due ${new Date(left.dueAt!).toISOString()}`,
        );
      }
    }
  }
  return checked;
}
