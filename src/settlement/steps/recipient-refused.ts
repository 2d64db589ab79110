import { COMPUTE_BUDGET_INSTRUCTIONS } from '../../chain/hush-transactions.ts';
import { recipientRefused } from '../../domain/settlement/recipient-refusal.ts';
import { swapLegs } from '../../ledger/order-movements.ts';
import { allOrNothing } from '../../store/db.ts';
import type { OrderRecord } from '../../store/orders-store.ts';
import { refundOrder } from '../../store/settlement/refund-order.ts';
import type { ChainTxOf } from '../../store/settlement/chain-tx.ts';
import { recordMovement } from '../../store/settlement/record-movements.ts';
import type { SettlementContext } from '../context.ts';

/** What refusing a payout touches. */
export type RefusedPayoutDeps = Pick<SettlementContext, 'db' | 'alert'>;

/**
 * `sending → refunding` (`recipient_refused`) when the chain refuses the payout for a reason its recipient
 * causes (recipientRefused), instead of rebuilding it with a growing back-off until the watchdog's hour.
 * Only once no attempt can still land (none pending, none landed): the refund is then planned, recorded
 * and sent like any other. A swapped order's swap is undone on the ledger in the same transaction: the
 * destination it owed is no longer owed. Returns true when it moved the order.
 */
export async function refundRefusedPayout(ctx: RefusedPayoutDeps, o: OrderRecord, payouts: ChainTxOf<'payout'>[]): Promise<boolean> {
  if (payouts.length === 0 || payouts.some((t) => t.status === 'pending' || t.status === 'confirmed')) return false;
  const errors = payouts.filter((t) => t.status === 'failed').map((t) => t.meta.err);
  if (!recipientRefused(errors, COMPUTE_BUDGET_INSTRUCTIONS)) return false;
  const moved = await allOrNothing(ctx.db, async (tx) => {
    if (!(await refundOrder(tx, o.id, 'sending', 'recipient_refused'))) return false;
    if (o.sourceAssetId !== o.destinationAssetId) {
      const net = o.amountIn - o.serviceFee - o.partnerFee - o.networkFee;
      const undo = swapLegs(o, net).map((l) => ({ ...l, amount: -l.amount }));
      await recordMovement(tx, `swap-undone:${o.trackingId}`, 'swap', undo, o.id);
    }
    return true;
  });
  if (moved) {
    const last = JSON.stringify(errors[errors.length - 1] ?? null);
    ctx.alert('recipient_refused', { trackingId: o.trackingId, failed: errors.length, error: last }, 'ALERT: the chain refuses to pay this recipient; refunding the sender');
  }
  return moved;
}
