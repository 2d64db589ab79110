import { allOrNothing } from '../../store/db.ts';
import type { OrderRecord } from '../../store/orders-store.ts';
import { failOrder } from '../../store/settlement/fail-order.ts';
import { leaseOrder } from '../../store/settlement/lease-order.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { cannotReceiveSol as solCannotLand, needsRecipientLamports, refundPlan } from '../../domain/settlement/refund-plan.ts';
import { DEPOSIT_ACCOUNT_RENT } from '../../domain/network-cost.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { SETTLE_FALLBACK_SLOTS } from '../timing.ts';
import { heldAt, type ScreenDeps } from './screen-orders.ts';

/** What reading whether an address can receive SOL needs. */
export type SolReadDeps = Pick<SettlementContext, 'view' | 'asset'>;
/** What the refund step touches. */
export type RefundDeps = SolReadDeps & ScreenDeps & Pick<SettlementContext, 'db' | 'alert' | 'pools' | 'outbox' | 'workerId' | 'leaseSeconds' | 'slotMs' | 'faults'>;

/** An address's lamports at `confirmed`. */
export async function lamportsOf(ctx: Pick<SettlementContext, 'view'>, address: string): Promise<bigint> {
  return (await ctx.view.balances([address], 'confirmed')).get(address)?.lamports ?? 0n;
}

/**
 * SOL below a wallet's rent sent to an address holding none fails on chain, every time (the account it
 * would open is not rent-exempt): sending it would only spend a fee per attempt. Reads the address only
 * when that decides something.
 */
export async function cannotReceiveSol(ctx: SolReadDeps, assetId: string, amount: bigint, to: string): Promise<boolean> {
  const native = ctx.asset(assetId).native;
  return needsRecipientLamports(native, amount) && solCannotLand(native, amount, await lamportsOf(ctx, to));
}

/**
 * A refund returns the deposit less the network fee, in the source asset, from a pool, and beside it the deposit
 * account's rent the sender paid to open it, in SOL from Hush's fee payer (Hush recovers it when its sweep closes the
 * account). A deposit that does not cover the network fee is not refunded, and its rent is kept with it.
 */
export async function startRefund(ctx: RefundDeps, o: OrderRecord): Promise<NextLook> {
  const deposited = BigInt(o.deposit?.amount ?? '0');
  const native = ctx.asset(o.sourceAssetId).native;
  const amountLeft = deposited - o.networkFee;
  const rentBack = DEPOSIT_ACCOUNT_RENT;
  // Read only when it decides something (no RPC for a refund that is below cost anyway).
  const lamports = amountLeft > 0n && needsRecipientLamports(native, amountLeft + rentBack) ? await lamportsOf(ctx, o.sender) : 0n;
  const plan = refundPlan(deposited, o.networkFee, native, lamports, rentBack);
  if (plan.kind === 'below_cost') {
    await failOrder(ctx.db, o.id, 'refunding', 'deposit_below_refund_cost');
    ctx.alert('deposit_unrefundable', { trackingId: o.trackingId, deposited: deposited.toString() }, 'ALERT: deposit too small to refund; held in custody');
    return {};
  }
  if (plan.kind === 'below_rent') {
    await failOrder(ctx.db, o.id, 'refunding', 'refund_below_rent');
    ctx.alert('refund_below_rent', { trackingId: o.trackingId, amount: plan.amount.toString() }, "ALERT: refund below a wallet's rent to a sender holding no SOL cannot land; held in custody");
    return {};
  }
  // docs/spec.md §12: no refund to a blocked sender, nor to one that could not be screened under
  // HUSH_SCREENING_ON_ERROR=hold (issue 49: a provider answering 500 let one through): held for the operator.
  if (await heldAt(ctx, o, 'refunding', 'refund')) return {};
  const { planned, ok } = await ctx.pools.exclusive(async () => {
    const planned = await ctx.pools.plan(o, 'refund', o.sourceAssetId, o.sender, plan.amount, { rentBack: rentBack.toString() });
    if (!planned) return { planned, ok: false };
    const ok = await allOrNothing(ctx.db, async (tx) => {
      if (!(await leaseOrder(tx, o.id, 'refunding', ctx.workerId, ctx.leaseSeconds))) return false;
      return (await insertChainTx(tx, planned)) !== null;
    });
    return { planned, ok };
  });
  if (!planned) return { delayMs: 5000 };
  if (!ok) return { delayMs: 0 };
  ctx.faults.reach('refund-recorded');
  await ctx.outbox.sendAll([planned.wire]);
  return { delayMs: SETTLE_FALLBACK_SLOTS * ctx.slotMs };
}
