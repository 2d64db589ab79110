import type { Queryable } from '../db.ts';
import type { OrderRecord } from '../orders-store.ts';
import { claimDue } from './claim-due-orders.ts';
import { PAYABLE } from './final-statuses.ts';

/**
 * Claims due orders that are paid next (a deposit confirmed, or a swap done) for one worker: claimDueOrders'
 * statement narrowed to them, for the payout loop, so a payout falling due is claimed at its due time and is never
 * in a batch behind other orders' deposit reads and confirmations (docs/performance.md, "Settlement at the raw
 * loop's pace"). Both loops claim with SKIP LOCKED: an order is stepped by whichever claims it first.
 */
export function claimDuePayouts(db: Queryable, workerId: string, limit: number, leaseSeconds: number): Promise<OrderRecord[]> {
  return claimDue(db, `status IN ${PAYABLE}`, workerId, limit, leaseSeconds);
}
