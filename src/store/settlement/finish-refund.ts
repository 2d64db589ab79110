import type { Queryable } from '../db.ts';
import type { OrderRecord } from '../order-record.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('finishRefund', [['refunding', 'refunded']]);

/**
 * The one writer of `refunding → refunded`: every part of the refund landed; `refund` is what the status
 * record shows. Inside the transaction that books the fee's movement. False when another actor moved it first.
 */
export function finishRefund(db: Queryable, id: string, refund: NonNullable<OrderRecord['refund']>): Promise<boolean> {
  return WRITER.move(db, id, 'refunding', 'refunded', { refund });
}
