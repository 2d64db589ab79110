import { randomInt } from 'node:crypto';
import type { Address } from '@solana/kit';
import type { AccountBalance } from '../../chain/chain-view.ts';
import { buildSweep } from '../../chain/hush-transactions.ts';
import { allOrNothing } from '../../store/db.ts';
import { LATE_SWEEP_LOCK, tryTransactionLock } from '../../store/settlement/advisory-locks.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lateDepositCandidates } from '../../store/settlement/late-deposit-candidates.ts';
import { storeNow } from '../../store/settlement/store-now.ts';
import { sweepOfAccount } from '../../store/settlement/sweep-of-account.ts';
import { WRAPPED_SOL_RESERVE } from '../../domain/reserves.ts';
import type { SettlementContext } from '../context.ts';
import { replaceDeadLateRefunds, retryLateRefunds, type LateRefundsDeps } from './late-refunds.ts';
import { StrayWatch } from './stray-funds.ts';

/** What sweeping late funds touches. */
export type SweepLateDeps = Pick<SettlementContext, 'db' | 'view' | 'asset' | 'treasury' | 'chain' | 'shape' | 'outbox' | 'log'>;
/** What a late-deposit pass touches: the late sweeps, and the late refunds it retries or replaces. */
export type LateDepositsDeps = SweepLateDeps & LateRefundsDeps;

/** Finished orders a late-deposit pass reads: this many most recently finished, and this many more in rotation. */
const LATE_PER_PART = 100;

/**
 * Funds that reach a deposit account after its order is final (or after its deposit was swept) are
 * swept into a pool and refunded to the order's sender, less the order's network fee. Also replaces
 * late refunds whose transaction died, and looks for funds at the deposit owners outside their deposit
 * accounts (StrayWatch).
 */
export class LateDeposits {
  /** Where the pass's rotation through its window goes on (an order id). */
  private rotation: bigint | null = null;
  private readonly strays: StrayWatch;

  constructor(private readonly ctx: LateDepositsDeps) {
    this.strays = new StrayWatch(ctx.db, ctx.view, ctx.log);
  }

  async pass(): Promise<number> {
    const ctx = this.ctx;
    const { rows, next } = await lateDepositCandidates(ctx.db, this.rotation, LATE_PER_PART);
    this.rotation = next;
    let found = 0;
    if (rows.length > 0) {
      const balances = await ctx.view.balances([...rows.map((r) => r.deposit_account), ...rows.map((r) => r.deposit_owner)], 'confirmed');
      for (const r of rows) {
        this.strays.noticeSol(r.tracking_id, r.deposit_owner, balances.get(r.deposit_owner)?.lamports ?? 0n);
        if (!lateFunds(ctx, r.source_asset_id, balances.get(r.deposit_account))) continue;
        found++;
        await sweepLate(ctx, String(r.id), r.tracking_id, r.deposit_account, r.source_asset_id);
      }
    }
    // A failed read only delays those owners to the next rotation; the refunds below still run.
    await this.strays.scanTokens().catch((e: unknown) => ctx.log({ err: e }, 'stray token account read failed'));
    await retryLateRefunds(ctx);
    await replaceDeadLateRefunds(ctx);
    return found;
  }
}

/**
 * What a deposit account holds after its order is done, if anything. SOL sent to a wrapped-SOL deposit
 * address whose account is closed (or was never made) sits at an address only the token programs can
 * touch: reopening the account moves it (all of it is the sender's: the account had no rent of its
 * own). Too few lamports to pay the rent are left there.
 */
function lateFunds(ctx: Pick<SettlementContext, 'asset'>, assetId: string, b: AccountBalance | undefined): { amount: bigint; reopen: boolean } | null {
  if (b?.exists && b.tokenAmount === null && ctx.asset(assetId).native && b.lamports > WRAPPED_SOL_RESERVE) return { amount: b.lamports, reopen: true };
  const amount = b?.tokenAmount ?? 0n;
  return amount > 0n ? { amount, reopen: false } : null;
}

/**
 * Records and sends the sweep of late funds. Two workers' passes can see the same funds. The balance is
 * read and the sweep signed first (no transaction held across RPC calls); then, under a per-deposit-
 * account advisory lock, it is recorded only if no sweep of that account is pending or was settled
 * since the read — so a sweep that already took the funds is never followed by a second one, which the
 * fee payer would fund and a refund would pay out again.
 */
async function sweepLate(ctx: SweepLateDeps, orderId: string, trackingId: string, depositAccount: string, assetId: string): Promise<void> {
  const asset = ctx.asset(assetId);
  const pools = ctx.treasury.pools(assetId);
  const pool = pools[randomInt(pools.length)]!;
  // The store's clock, like chain_txs.updated_at.
  const readAt = await storeNow(ctx.db);
  if (await sweepOfAccount(ctx.db, depositAccount)) return;
  const funds = lateFunds(ctx, assetId, (await ctx.view.balances([depositAccount], 'confirmed')).get(depositAccount));
  if (!funds) return;
  const { amount, reopen } = funds;
  const signed = await buildSweep(ctx.shape(await ctx.chain().latestBlockhash()), {
    asset,
    poolWallet: pool.address,
    poolHolding: pool.holding,
    items: [{ owner: await ctx.treasury.depositSigner(trackingId), depositAccount: depositAccount as Address, amount, reopen }],
  });
  const recorded = await allOrNothing(ctx.db, async (tx) => {
    if (!(await tryTransactionLock(tx, LATE_SWEEP_LOCK, depositAccount)) || (await sweepOfAccount(tx, depositAccount, readAt))) return false;
    const id = await insertChainTx(tx, {
      kind: 'sweep',
      orderId: null,
      assetId,
      amount,
      source: 'deposits',
      destination: pool.holding,
      ...signed,
      // A reopened account has no reserve of its own: every lamport it held came from the sender.
      meta: { items: [{ orderId, depositAccount, amount: amount.toString(), late: true, ...(reopen ? { reserve: '0' } : {}) }] },
    });
    return id !== null;
  });
  if (!recorded) return;
  ctx.log({ trackingId, amount: amount.toString() }, reopen ? 'SOL sent to a closed deposit address; reopening it to refund' : 'late deposit found; sweeping it for a refund');
  await ctx.outbox.sendAll([signed.wire]);
}
