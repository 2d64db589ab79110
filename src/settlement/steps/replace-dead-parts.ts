import { allOrNothing } from '../../store/db.ts';
import type { OrderRecord } from '../../store/orders-store.ts';
import type { ChainTxOf } from '../../store/settlement/chain-tx.ts';
import { leaseOrder } from '../../store/settlement/lease-order.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { partAttempts } from '../../store/settlement/part-attempts.ts';
import { replacementDelayMs } from '../../domain/replacement-backoff.ts';
import { computeUnitPriceOfWire } from '../../chain/wire-price.ts';
import type { SettlementContext } from '../context.ts';

/** What replacing a dead part touches. */
export type ReplacePartDeps = Pick<SettlementContext, 'db' | 'alerted' | 'alert' | 'log' | 'pools' | 'outbox' | 'workerId' | 'leaseSeconds' | 'clock'>;

/**
 * Rebuilds a part whose transaction provably cannot land (expired) or landed and failed: as one
 * transaction from the pools that can cover it now (not blindly the same ones, which may be what made it
 * fail), under the same planning lock as new payouts. When they cannot, it waits for the next tick. A part that keeps
 * failing waits longer each time (replacementDelayMs). An expired attempt was priced below what landed while its
 * blockhash lived (or was dropped): its replacement offers at least 1.5× its price, up to the cap (its price read
 * from its own bytes, src/chain/wire-price.ts). One that landed and failed was priced well enough: no escalation.
 */
export async function replacePart(ctx: ReplacePartDeps, o: OrderRecord, dead: ChainTxOf<'payout' | 'refund'>, part: number): Promise<void> {
  const kind = dead.kind;
  const attempts = await partAttempts(ctx.db, o.id, kind, part, dead.meta.lateOf);
  const waitMs = (attempts.lastAt?.getTime() ?? 0) + replacementDelayMs(attempts.failed) - ctx.clock.now();
  if (waitMs > 0) {
    if (ctx.alerted.backoff.first(dead.id)) {
      ctx.alert('tx_keeps_failing', { trackingId: o.trackingId, part: String(part), failed: attempts.failed, retryInS: Math.ceil(waitMs / 1000) }, `ALERT: a ${kind} keeps failing on chain; the next attempt waits`);
    }
    return;
  }
  const sent = await ctx.pools.exclusive(async () => {
    const previousPrice = dead.status === 'expired' ? (computeUnitPriceOfWire(dead.wire) ?? undefined) : undefined;
    const planned = await ctx.pools.plan(o, kind, dead.assetId, dead.destination, dead.amount, { ...dead.meta }, ctx.db, undefined, { previousPrice });
    if (!planned) return null;
    const row = { ...planned, meta: { ...planned.meta, part } };
    // A late refund is its late funds' business, not the order's: no hold (the order may be final or another worker's).
    const late = dead.meta.late === true;
    const recorded = await allOrNothing(ctx.db, async (tx) => (late || (await leaseOrder(tx, o.id, o.status, ctx.workerId, ctx.leaseSeconds))) && (await insertChainTx(tx, row)) !== null);
    return recorded ? row.wire : null;
  });
  if (sent) await ctx.outbox.sendAll([sent]);
  else ctx.log({ trackingId: o.trackingId, part: String(part) }, 'replacement payout waits: no pool can cover it now');
}
