import type { OrderRecord } from '../../store/orders-store.ts';
import { markSwapping } from '../../store/settlement/mark-swapping.ts';
import { refundOrder } from '../../store/settlement/refund-order.ts';
import { recordMovement } from '../../store/settlement/record-movements.ts';
import { convertForSwap } from '../../domain/swap-conversion.ts';
import { swapLegs } from '../../ledger/order-movements.ts';
import type { SettlementContext } from '../context.ts';

/** What starting a swap touches. */
export type SwapDeps = Pick<SettlementContext, 'db' | 'config' | 'swaps' | 'log'>;

/**
 * `deposit_confirmed → swapping` for a cross-asset order at the quoted rate: the quote is firm (docs/spec.md §4).
 * Only when an operator set HUSH_SWAP_MAX_DRIFT_BPS is the live rate read, and a market moved against
 * Hush by more than that refunds the deposit (`price_moved`); without a fresh price such an order waits.
 * The status change and the inventory legs (source in, destination owed) are one database transaction.
 */
export async function startSwap(ctx: SwapDeps, o: OrderRecord): Promise<'swapped' | 'refund' | 'wait'> {
  if (!ctx.swaps) return 'wait';
  const net = o.amountIn - o.serviceFee - o.partnerFee - o.networkFee;
  const drift = ctx.config.swapMaxDriftBps;
  // A swap already booked (an order held while swapping, then released by an operator) goes back to swapping
  // at the rate it was booked at: a drift refund now would leave that booking in place.
  if (drift !== null && !(await swapBooked(ctx, o))) {
    let liveOut: bigint;
    try {
      const p = ctx.swaps.pair(o.sourceAssetId, o.destinationAssetId);
      liveOut = convertForSwap(net, p.from, p.to, p.spreadBps);
    } catch {
      return 'wait';
    }
    if (liveOut * 10_000n < o.amountOut * (10_000n - BigInt(drift))) {
      await refundOrder(ctx.db, o.id, 'deposit_confirmed', 'price_moved');
      ctx.log({ trackingId: o.trackingId, quoted: o.amountOut.toString(), live: liveOut.toString() }, 'swap refunded: price moved');
      return 'refund';
    }
  }
  const moved = await ctx.db.transaction(async (tx) => {
    if (!(await markSwapping(tx, o.id))) return false;
    await recordMovement(tx, `swap:${o.trackingId}`, 'swap', swapLegs(o, net), o.id);
    return true;
  });
  return moved ? 'swapped' : 'wait';
}

async function swapBooked(ctx: SwapDeps, o: OrderRecord): Promise<boolean> {
  const { rows } = await ctx.db.query(`SELECT 1 FROM ledger_entries WHERE movement = $1 LIMIT 1`, [`swap:${o.trackingId}`]);
  return rows.length > 0;
}
