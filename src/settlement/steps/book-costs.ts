import type { ChainTx } from '../../store/settlement/chain-tx.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import { setTxFees } from '../../store/settlement/set-tx-fees.ts';
import { uncostedChainTxs } from '../../store/settlement/uncosted-chain-txs.ts';
import { ownCosts } from '../../ledger/drain-movements.ts';
import { absorbedPriorityFee, networkCostMovement, quotedPriceOf } from '../../ledger/network-cost.ts';
import { orderFeePrices } from '../../store/settlement/order-fee-prices.ts';
import { computeUnitPriceOfWire } from '../../chain/wire-price.ts';
import type { TxCosts } from '../../chain/chain-view.ts';
import type { SettlementContext } from '../context.ts';

/** What booking a landed transaction's costs touches: the chain's record of it, the fee payer, the grid's rung, the ledger. */
export type BookCostsDeps = Pick<SettlementContext, 'db' | 'view' | 'treasury' | 'grid' | 'config' | 'log'>;

/** Landed transactions whose costs wait at most this many per pass. */
const UNCOSTED_BATCH = 256;

/** The orders whose networkFee priced a transaction: a payout's or refund's own, a sweep's items'; none for the rest. */
function flatPricedOrders(t: ChainTx): string[] {
  if ((t.kind === 'payout' || t.kind === 'refund') && t.orderId) return [t.orderId];
  if (t.kind === 'sweep') return t.meta.items.map((i) => i.orderId);
  return [];
}

/**
 * What Hush absorbed of a transaction the quotes' flat networkFee prices (a payout, a refund, a sweep): its
 * priority fee over the rung its orders were quoted at (src/ledger/network-cost.ts). A partner payout, a funding
 * or a stray return is priced by no quote: all of it is Hush's expense as before.
 */
export function flatAbsorbed(t: ChainTx, rung: bigint, units: number): bigint {
  if (flatPricedOrders(t).length === 0) return 0n;
  const paid = computeUnitPriceOfWire(t.wire);
  return paid === null ? 0n : absorbedPriorityFee(paid, rung, units);
}

/**
 * The rung each transaction is split at: the one its orders were quoted at (the grid may have moved since; one
 * read for the batch); the rung in effect now only for an order older than that record.
 */
export async function quotedRungs(ctx: Pick<SettlementContext, 'db' | 'grid'>, txs: readonly ChainTx[]): Promise<(t: ChainTx) => bigint> {
  const flat = await ctx.grid.flatPrice();
  const quoted = await orderFeePrices(ctx.db, txs.flatMap(flatPricedOrders));
  return (t) => quotedPriceOf(flatPricedOrders(t), quoted, flat);
}

/**
 * The costs of landed payouts whose orders completed without waiting for them (settle-fates.ts: the partner
 * sees `completed` one `getTransaction` round trip sooner): each transaction's fee and its cost movement in
 * one database transaction, compare-and-set on its fee not booked yet, so a second booking books nothing.
 * Costs the chain does not show yet stay for the next pass (bookUncosted). Returns how many are left.
 */
export async function bookCosts(ctx: BookCostsDeps, txs: ChainTx[]): Promise<number> {
  if (txs.length === 0) return 0;
  const found = await ctx.view.costsMany(txs.map((t) => ({ signature: t.signature })));
  // Figures a batch cannot carry exactly: one by one (a transaction not visible yet stays null).
  const costs = await Promise.all(found.map((c, i) => c ?? ctx.view.costs(txs[i]!.signature).catch(() => null)));
  const ready = txs.flatMap((t, i) => (costs[i] ? [{ t, costs: costs[i] as TxCosts }] : []));
  if (ready.length > 0) {
    const rungOf = await quotedRungs(ctx, ready.map(({ t }) => t));
    await ctx.db.transaction(async (tx) => {
      const set = await setTxFees(tx, ready.map(({ t, costs: c }) => ({ id: t.id, feeLamports: c.fee })));
      const mine = ready.filter(({ t }) => set.has(t.id));
      await recordMovements(tx, mine.map(({ t, costs: c }) => networkCostMovement(t.signature, c.feePayer, ownCosts(t, c), flatAbsorbed(t, rungOf(t), ctx.config.computeUnitLimit))));
    });
  }
  return txs.length - ready.length;
}

/** Books what a crash (or a lagging node) left uncosted; returns how many are left. */
export async function bookUncosted(ctx: BookCostsDeps): Promise<number> {
  return bookCosts(ctx, await uncostedChainTxs(ctx.db, UNCOSTED_BATCH));
}
