import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('markSwapping', [['deposit_confirmed', 'swapping']]);

/**
 * The one writer of `deposit_confirmed → swapping`: the swap step's, inside the transaction that books
 * the swap's legs. Compare-and-set; false when another actor moved it first.
 */
export function markSwapping(db: Queryable, id: string): Promise<boolean> {
  return WRITER.move(db, id, 'deposit_confirmed', 'swapping');
}
