import { isAddress } from '@solana/kit';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { partnerFeesOwed } from '../../store/settlement/partner-fees-owed.ts';
import { PARTNER_PAYOUT_LOCK, tryTransactionLock } from '../../store/settlement/advisory-locks.ts';
import { partnerLot, payableLots } from '../../domain/settlement/partner-lots.ts';
import type { SettlementContext } from '../context.ts';
import { cannotReceiveSol, type SolReadDeps } from './refund.ts';

/** What paying partners touches. */
export type PartnerPayoutDeps = SolReadDeps & Pick<SettlementContext, 'db' | 'config' | 'pools' | 'outbox'>;

/**
 * Pays accrued partner fees, one transfer per partner, fee recipient and asset per period: never one
 * per order, and in whole lots (partner-lots.ts), so a partner payout reveals nothing about any single order. Serialized across workers by
 * an advisory lock; what pending payouts already cover is not owed again.
 */
export async function payPartners(ctx: PartnerPayoutDeps): Promise<number> {
  const planned = await ctx.pools.exclusive(() =>
    ctx.db.transaction(async (tx) => {
      if (!(await tryTransactionLock(tx, PARTNER_PAYOUT_LOCK))) return [];
      const out = [];
      for (const r of await partnerFeesOwed(tx)) {
        const amount = payableLots(r.owed, partnerLot(ctx.config.assets.get(r.assetId)?.denominations ?? []));
        const recipient = r.account.split(':')[3];
        // The account name carries the recipient Hush registered (checked then): anything else is no address.
        if (amount <= 0n || !recipient || !isAddress(recipient)) continue;
        // SOL below a wallet's rent cannot open an empty recipient's account (it would fail every period,
        // costing a fee each time): it keeps accruing until it can.
        if (await cannotReceiveSol(ctx, r.assetId, amount, recipient)) continue;
        const planned = await ctx.pools.plan({ id: null, trackingId: r.account }, 'partner_payout', r.assetId, recipient, amount, { payable: r.account }, tx);
        if (planned && (await insertChainTx(tx, planned)) !== null) out.push(planned.wire);
      }
      return out;
    }),
  );
  await ctx.outbox.sendAll(planned);
  return planned.length;
}
