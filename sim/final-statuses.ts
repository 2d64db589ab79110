import type { PartnerApi } from './partner-api.ts';
import type { OrderTruth } from './users.ts';

/** What the invariants read of an order's status record (the status API's `order`). */
export interface StatusRecord {
  status: string;
  privacy: { releasedWith: number | null; releasedWithPending: string | null; heldSeconds: number | null };
  history: { status: string; at: string }[];
}

/**
 * Every placed order's status as its partner reads it now, once for all the final checks (a user may have stopped
 * reading before its order ended); null where the API does not answer it.
 */
export async function readStatuses(partners: readonly { api: PartnerApi }[], truths: readonly OrderTruth[]): Promise<(t: OrderTruth) => StatusRecord | null> {
  const read = new Map<OrderTruth, StatusRecord>();
  for (const t of truths) {
    if (t.trackingId === null) continue;
    const a = await partners[t.session.partner]!.api.status(t.trackingId);
    if (a.status === 200) read.set(t, a.body.order as StatusRecord);
  }
  return (t) => read.get(t) ?? null;
}
