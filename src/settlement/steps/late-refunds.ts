import { getOrderById } from '../../store/orders-store.ts';
import type { ChainTxOf } from '../../store/settlement/chain-tx.ts';
import { abandonedLateRefunds } from '../../store/settlement/abandoned-late-refunds.ts';
import { deadLateRefunds } from '../../store/settlement/dead-late-refunds.ts';
import { getChainTx } from '../../store/settlement/get-chain-tx.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lateRefundsExist } from '../../store/settlement/late-refunds-exist.ts';
import { markLateRefunded } from '../../store/settlement/mark-late-refunded.ts';
import { unrefundedLateSweeps } from '../../store/settlement/unrefunded-late-sweeps.ts';
import type { SettlementContext } from '../context.ts';
import { cannotReceiveSol, type SolReadDeps } from './refund.ts';
import { replacePart, type ReplacePartDeps } from './replace-dead-parts.ts';

/** What planning a landed sweep's late refunds touches. */
export type RefundLateDeps = SolReadDeps & Pick<SettlementContext, 'db' | 'pools' | 'alert' | 'outbox'>;
/** What the late-deposit pass's refund work touches (retries go through the runner's refundLate hook). */
export type LateRefundsDeps = ReplacePartDeps & Pick<SettlementContext, 'db' | 'alerted' | 'alert' | 'refundLate'>;

/** A late refund that cannot be recorded whole right now: its transaction rolls back, a later pass retries. */
class LateRefundDeferred extends Error {}

/**
 * Plans the refunds a landed sweep's late items are owed, all parts of all its items in one database
 * transaction that also marks the sweep `lateRefunded`: refunds are recorded whole or not at all. A sweep
 * still unmarked (a crash, an RPC error, no pool able to pay yet) is found again by retryLateRefunds.
 */
export async function refundLate(ctx: RefundLateDeps, sweep: ChainTxOf<'sweep'>): Promise<void> {
  const items = sweep.meta.items.filter((i) => i.late);
  if (items.length === 0) return;
  // Read before the database transaction (no transaction waits on the RPC): which SOL refunds cannot land.
  const unpayable = new Set<string>();
  if (ctx.asset(sweep.assetId).native) {
    for (const item of items) {
      const order = await getOrderById(ctx.db, item.orderId);
      if (order && (await cannotReceiveSol(ctx, order.sourceAssetId, BigInt(item.amount) - order.networkFee, order.sender))) unpayable.add(item.orderId);
    }
  }
  const wires = await ctx.pools
    .exclusive(() =>
      ctx.db.transaction(async (tx) => {
        if (!(await markLateRefunded(tx, sweep.id))) return [];
        // Refunds recorded before sweeps were marked: the mark is all that was missing.
        if (await lateRefundsExist(tx, sweep.signature)) return [];
        const out: string[] = [];
        for (const item of items) {
          const order = await getOrderById(tx, item.orderId);
          if (!order) continue;
          const refund = BigInt(item.amount) - order.networkFee;
          if (refund <= 0n) {
            ctx.alert('late_deposit_unrefundable', { trackingId: order.trackingId, amount: item.amount }, 'ALERT: late deposit too small to refund; held in custody');
            continue;
          }
          if (unpayable.has(item.orderId)) {
            ctx.alert('late_refund_below_rent', { trackingId: order.trackingId, amount: refund.toString() }, "ALERT: late refund below a wallet's rent to a sender holding no SOL cannot land; held in custody");
            continue;
          }
          const planned = await ctx.pools.plan(order, 'refund', order.sourceAssetId, order.sender, refund, { late: true }, tx);
          // No pool can pay it now: roll the whole mark back, so a later pass tries again.
          if (!planned) throw new LateRefundDeferred();
          if ((await insertChainTx(tx, { ...planned, meta: { ...planned.meta, part: 0, lateOf: sweep.signature } })) === null) throw new LateRefundDeferred();
          out.push(planned.wire);
        }
        return out;
      }),
    )
    .catch((e: unknown) => {
      if (e instanceof LateRefundDeferred) return [];
      throw e;
    });
  await ctx.outbox.sendAll(wires);
}

/** Landed sweeps whose late refunds were never recorded (see refundLate), oldest first. */
export async function retryLateRefunds(ctx: Pick<SettlementContext, 'db' | 'refundLate'>): Promise<void> {
  for (const id of await unrefundedLateSweeps(ctx.db)) {
    const sweep = await getChainTx(ctx.db, id);
    if (sweep?.kind === 'sweep') await ctx.refundLate(sweep);
  }
}

export async function replaceDeadLateRefunds(ctx: LateRefundsDeps): Promise<void> {
  // Only parts whose latest attempt died, and only recent ones: this runs every pass, and late refunds accumulate.
  const dead = await deadLateRefunds(ctx.db);
  await alertAbandonedLateRefunds(ctx);
  for (const id of dead) {
    const t = await getChainTx(ctx.db, id);
    if (!t || t.kind !== 'refund' || (t.status !== 'expired' && t.status !== 'failed')) continue;
    const order = await getOrderById(ctx.db, t.orderId!);
    if (order) await replacePart(ctx, order, t, t.meta.part ?? 0);
  }
}

/**
 * Late refund parts past the 7-day window whose last attempt died are no longer retried (one that keeps
 * failing, e.g. to a frozen account, would otherwise cost fees forever): the sender's funds then need an
 * operator. Told once per process and part, on the day they are given up.
 */
async function alertAbandonedLateRefunds(ctx: Pick<SettlementContext, 'db' | 'alerted' | 'alert'>): Promise<void> {
  for (const r of await abandonedLateRefunds(ctx.db)) {
    if (!ctx.alerted.abandonedLateRefund.first(r.id)) continue;
    // The part named as before this was structured (migration 016): for the operator, never parsed.
    ctx.alert('late_refund_abandoned', { trackingId: r.trackingId, part: `late:${r.lateOf}:${r.part}`, assetId: r.assetId, amount: r.amount }, 'ALERT: a late refund failed for 7 days and is no longer retried; the funds are in the pools, refund the sender by hand');
  }
}
