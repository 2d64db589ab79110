import type { OrderStatus } from '../../domain/order-state.ts';
import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

/** Where a refund starts on its own (the operator's refund of a held order is resolveHold's). */
export type RefundableStatus = Extract<OrderStatus, 'deposit_confirmed' | 'swapping' | 'sending'>;

const WRITER = orderWriter('refundOrder', [['deposit_confirmed', 'refunding'], ['swapping', 'refunding'], ['sending', 'refunding']]);

/**
 * The one writer of `deposit_confirmed | swapping | sending → refunding`: a deposit that does not match, a price that
 * moved, a recipient the chain refuses. Compare-and-set on `from`; false when another actor moved it first.
 */
export async function refundOrder(db: Queryable, id: string, from: RefundableStatus, failureReason: string): Promise<boolean> {
  return WRITER.move(db, id, from, 'refunding', { failureReason });
}
