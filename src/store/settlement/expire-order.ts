import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('expireOrder', [['awaiting_deposit', 'expired']]);

/**
 * The one writer of `awaiting_deposit → expired`: only if every transaction handed out for the order is
 * dead at `height` (read in the same statement as the status, so a refresh in between keeps it open).
 * `failureReason` says why a deposit never could land, when Hush knows (someone else's funds were there).
 */
export function expireOrder(db: Queryable, id: string, height: bigint, failureReason?: string): Promise<boolean> {
  return WRITER.move(db, id, 'awaiting_deposit', 'expired', failureReason ? { failureReason } : {}, { deadAtHeight: height });
}
