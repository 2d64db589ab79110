import type { Address } from '@solana/kit';
import { depositAccountOf } from '../../chain/deposit-transaction.ts';
import { addressFromBytes } from '../../domain/address-codec.ts';
import type { DepositRecord } from '../../domain/chain-record.ts';
import { getOrderByTrackingId, type OrderRecord } from '../../store/orders-store.ts';
import { openDepositRecord } from '../../treasury/deposit-record-box.ts';
import type { SettlementContext } from '../context.ts';
import { depositOf, insertRecoveredOrder, RECOVERED_QUOTE } from './rebuild-order.ts';

type RebuildDeps = Pick<SettlementContext, 'db' | 'view' | 'treasury' | 'config' | 'clock' | 'log'>;

/** Why a rebuilt order is refunded rather than paid: its record promises what the deposit cannot be shown to cover. */
export const UNVERIFIABLE_TERMS = 'recovered_terms_unverifiable';

/**
 * An order the store forgot before it was paid or refunded, rebuilt from its deposit's sealed record
 * (docs/decisions.md "The deposit carries its order's record"): the record gives its tracking id, account, mode,
 * assets, recipient and amountOut; the deposit transaction its sender, amount and time. The record is sealed to a
 * public key, so anyone holding it could have written one: it is believed only for the account the seed derives
 * from its tracking id (a deposit account only that order's transaction can create), and a same-asset order is paid
 * only when amountOut is no more than the deposit; anything else (a swap, whose price has moved since) is refunded
 * to the sender (its quote's `recoveredRefund`, which pay-or-refund follows). Null when the account's first deposit holds no record a held seed opens.
 */
export async function rebuildFromDeposit(ctx: RebuildDeps, account: string): Promise<OrderRecord | null> {
  const deposit = await depositOf(ctx, account as Address);
  if (!deposit?.tx.memo) return null;
  for (const seed of ctx.treasury.seeds()) {
    const record = openDepositRecord(seed.keys.depositRecordSecret, deposit.tx.memo);
    if (!record) continue;
    const terms = termsOf(ctx, record);
    if (!terms) return null;
    const depositOwner = seed.keys.depositOwnerAddress(record.trackingId);
    if (depositAccountOf(depositOwner, terms.source.mint, terms.source.tokenProgram).depositAccount !== account) return null;
    const known = await getOrderByTrackingId(ctx.db, record.trackingId);
    const payable = record.sourceAssetId === record.destinationAssetId && record.amountOut > 0n && record.amountOut <= deposit.amount;
    const refundReason = payable ? null : UNVERIFIABLE_TERMS;
    if (known) return known;
    const created = await insertRecoveredOrder(ctx, deposit, {
      trackingId: record.trackingId,
      accountId: terms.accountId,
      // The refund decision rides in the quote, so the usual pay-or-refund step takes it whoever confirms the order.
      quote: { ...RECOVERED_QUOTE, fromDeposit: true, ...(refundReason ? { recoveredRefund: refundReason } : {}) },
      sourceAssetId: terms.source.assetId,
      destinationAssetId: terms.destination.assetId,
      mode: terms.mode,
      amountOut: record.amountOut,
      // The fee split is not on chain: a same-asset order's whole difference is booked as the service fee.
      serviceFee: payable ? deposit.amount - record.amountOut : 0n,
      networkFee: 0n,
      sender: deposit.tx.signers[0]! as Address,
      recipient: addressFromBytes(record.recipient),
      depositOwner,
      depositAccount: account as Address,
    });
    if (created) ctx.log({ trackingId: record.trackingId, accountId: terms.accountId, refundReason }, 'an order the store forgot before paying it was rebuilt from its deposit');
    return getOrderByTrackingId(ctx.db, record.trackingId);
  }
  return null;
}

function termsOf(ctx: RebuildDeps, r: DepositRecord) {
  const source = r.sourceAssetId ? ctx.config.assets.get(r.sourceAssetId) : undefined;
  const destination = r.destinationAssetId ? ctx.config.assets.get(r.destinationAssetId) : undefined;
  if (!source || !destination || !r.accountId || !r.mode) return null;
  return { source, destination, accountId: r.accountId, mode: r.mode };
}

/** A rebuilt order's refund decision (rebuildFromDeposit), or null: the order is paid as its record promised. */
export function recoveredRefund(quote: unknown): string | null {
  const r = (quote as { recoveredRefund?: unknown } | null)?.recoveredRefund;
  return typeof r === 'string' ? r : null;
}
