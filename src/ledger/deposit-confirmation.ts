import { duePolicy } from '../config/privacy-settings.ts';
import { depositAmount } from '../domain/settlement/deposit-decision.ts';
import { orderPayoutDue } from '../domain/settlement/payout-delay.ts';
import type { OrderRecord } from '../store/order-record.ts';
import type { DepositConfirmation } from '../store/settlement/confirm-deposits.ts';
import { depositMovement } from './order-movements.ts';
import type { Random } from '../support/random.ts';

/** The settings a due time is drawn from. */
export type DueSettings = Parameters<typeof duePolicy>[0];

/** An order's payout due time drawn from `from` (docs/spec.md §9: payoutDueFor), for its quote's privacy. */
export function drawPayoutDue(config: DueSettings, o: Pick<OrderRecord, 'quote'>, from: Date, random: Random): Date {
  return orderPayoutDue(o, from, duePolicy(config), (n) => random.int(n));
}

/**
 * What confirming an order's deposit records, built once for the worker and the deposit hint: the deposit
 * (its sender's transaction, and what it put there as the account at `confirmed` holds it), the payout due
 * time drawn now, and the deposit's ledger leg.
 */
export function depositConfirmation(
  config: DueSettings,
  o: Pick<OrderRecord, 'id' | 'trackingId' | 'sourceAssetId' | 'depositAccount' | 'quote'>,
  origin: { signature: string; amount: bigint },
  held: bigint,
  now: Date,
  random: Random,
): DepositConfirmation {
  const amount = depositAmount(origin.amount, held);
  return {
    id: o.id,
    deposit: { signature: origin.signature, amount: amount.toString(), confirmedAt: now.toISOString() },
    dueAt: drawPayoutDue(config, o, now, random),
    movement: depositMovement(o, amount),
  };
}
