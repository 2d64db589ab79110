import { statusesWhere, type OrderStatus } from '../../domain/order-state.ts';
import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('failOrder', statusesWhere('final', false).map((from) => [from, 'failed'] as const));

/**
 * The one writer of `… → failed`: the watchdog's (an order stuck past its deadline, `idle`: only while no
 * worker holds it and nothing of it is in flight) and a refund's that cannot be paid. Compare-and-set on
 * `from`; false when another actor moved it first.
 */
export async function failOrder(db: Queryable, id: string, from: OrderStatus, failureReason: string, opts: { idle?: boolean } = {}): Promise<boolean> {
  return WRITER.move(db, id, from, 'failed', { failureReason }, opts);
}
