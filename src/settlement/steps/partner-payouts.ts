import { isAddress } from '@solana/kit';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { partnerFeesOwed } from '../../store/settlement/partner-fees-owed.ts';
import { PARTNER_PAYOUT_LOCK, tryTransactionLock } from '../../store/settlement/advisory-locks.ts';
import { partnerLot, payableLots } from '../../domain/settlement/partner-lots.ts';
import type { SettlementContext } from '../context.ts';
import { cannotReceiveSol, type SolReadDeps } from './refund.ts';
import type { ScreenDeps } from './screen-orders.ts';
import { clearFeeHold, holdFeeRecipient, type FundHoldFinding } from '../../store/holds/fund-holds.ts';
import { fundReleaseCovers, recordScreening } from '../../store/screening-log-store.ts';

/** What paying partners touches. */
export type PartnerPayoutDeps = SolReadDeps & ScreenDeps & Pick<SettlementContext, 'db' | 'config' | 'pools' | 'outbox'>;

/**
 * docs/spec.md §12: every fee recipient owed something is screened before its payout (issue 49: fees were
 * paid to a listed one). Blocked, or unanswered under HUSH_SCREENING_ON_ERROR=hold, and not covered by an
 * operator's release of that finding: not paid (its fees keep accruing) and a hold opened for the operator
 * (logged and alerted once). Screens clear again: its hold ends and it is paid. Returns the accounts that may
 * be paid this period (null: screening off, every one): only those screened here, so an account that came to be
 * owed fees between this read and the payout's is paid next period, never unscreened.
 */
async function payableFeeAccounts(ctx: PartnerPayoutDeps): Promise<Set<string> | null> {
  if (!ctx.screening.enabled) return null;
  const payable = new Set<string>();
  const owed = (await partnerFeesOwed(ctx.db)).filter((r) => r.owed > 0n && isAddress(r.account.split(':')[3] ?? ''));
  if (owed.length === 0) return payable;
  const found = await ctx.screening.findingsEach(owed.map((r) => r.account.split(':')[3]!));
  for (const [i, r] of owed.entries()) {
    const address = r.account.split(':')[3]!;
    // The partner whose fees these are, for the log's partner filter (a fee row has no order to name it).
    const accountId = r.account.split(':')[2] || null;
    const passedOnError = found[i]!.find((v) => v.result === 'error' && ctx.config.screeningOnError === 'allow');
    // Blocked first: an error is reported only when nothing blocked.
    const weighed = found[i]!.filter((v) => v !== passedOnError).sort((x, y) => (x.result === y.result ? 0 : x.result === 'blocked' ? -1 : 1));
    if (weighed.length === 0) {
      await clearFeeHold(ctx.db, r.account);
      // Logged before the payout is recorded: no flow without its decision (docs/compliance.md).
      await recordScreening(ctx.db, { stage: 'fee', field: 'feeRecipientAddress', address, accountId, result: passedOnError ? 'error' : 'clear', ...(passedOnError ? { list: passedOnError.list, reason: `${passedOnError.reason}; passed (HUSH_SCREENING_ON_ERROR=allow)` } : {}), actor: ctx.workerId });
      payable.add(r.account);
      continue;
    }
    let uncovered: FundHoldFinding | null = null;
    for (const v of weighed) {
      const f: FundHoldFinding = { stage: 'fee', result: v.result, field: 'feeRecipientAddress', address: v.address, list: v.list, version: v.result === 'blocked' ? v.version : null, reason: v.reason };
      if (!(await fundReleaseCovers(ctx.db, 'fee', r.account, f))) {
        uncovered = f;
        break;
      }
    }
    // Every finding on it is one an operator released: paid.
    if (uncovered === null) {
      payable.add(r.account);
      continue;
    }
    if (await holdFeeRecipient(ctx.db, r.account, r.assetId, r.owed, uncovered)) {
      await recordScreening(ctx.db, { ...uncovered, stage: 'fee', actor: ctx.workerId, accountId });
      ctx.alert('fee_recipient_held', { account: r.account, assetId: r.assetId, result: uncovered.result, list: uncovered.list }, "ALERT: screening held a partner's fee recipient; its fees keep accruing until it clears or an operator releases it (GET /admin/v1/holds)");
    }
  }
  return payable;
}

/**
 * Pays accrued partner fees, one transfer per partner, fee recipient and asset per period: never one
 * per order, and in whole lots (partner-lots.ts), so a partner payout reveals nothing about any single order. Serialized across workers by
 * an advisory lock; what pending payouts already cover is not owed again.
 */
export async function payPartners(ctx: PartnerPayoutDeps): Promise<number> {
  // Screened outside the payout transaction: a risk API may take its timeout.
  const payable = await payableFeeAccounts(ctx);
  const planned = await ctx.pools.exclusive(() =>
    ctx.db.transaction(async (tx) => {
      if (!(await tryTransactionLock(tx, PARTNER_PAYOUT_LOCK))) return [];
      const out = [];
      for (const r of await partnerFeesOwed(tx)) {
        const amount = payableLots(r.owed, partnerLot(ctx.config.assets.get(r.assetId)?.denominations ?? []));
        const recipient = r.account.split(':')[3];
        // The account name carries the recipient Hush registered (checked then): anything else is no address.
        if (amount <= 0n || !recipient || !isAddress(recipient) || (payable && !payable.has(r.account))) continue;
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
