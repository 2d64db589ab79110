import type { Queryable } from '../db.ts';
import { orderWriter } from '../order-transitions.ts';

const WRITER = orderWriter('undetectDeposit', [['deposit_detected', 'awaiting_deposit']]);

/**
 * The one writer of `deposit_detected → awaiting_deposit`: the deposit seen at `processed` never reached
 * `confirmed` (its transaction failed or its blockhash died), so the order waits again, deposit cleared.
 */
export function undetectDeposit(db: Queryable, id: string): Promise<boolean> {
  return WRITER.move(db, id, 'deposit_detected', 'awaiting_deposit', { deposit: null });
}
