import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('detectDeposit', [['awaiting_deposit', 'deposit_detected']]);

/**
 * The one writer of `awaiting_deposit → deposit_detected`: a deposit seen at `processed`, its amount so
 * far (no signature or confirmation yet). Compare-and-set; false when another actor moved it first.
 */
export function detectDeposit(db: Queryable, id: string, amount: bigint): Promise<boolean> {
  return WRITER.move(db, id, 'awaiting_deposit', 'deposit_detected', { deposit: { signature: '', amount: amount.toString(), confirmedAt: null } });
}
