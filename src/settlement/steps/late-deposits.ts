import type { Address } from '@solana/kit';
import type { AccountBalance } from '../../chain/chain-view.ts';
import { SWEEP_RECORD } from '../../domain/chain-record.ts';
import { buildSweep } from '../../chain/hush-transactions.ts';
import { allOrNothing } from '../../store/db.ts';
import { LATE_SWEEP_LOCK, tryTransactionLock } from '../../store/settlement/advisory-locks.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lateDepositCandidates } from '../../store/settlement/late-deposit-candidates.ts';
import type { LateCandidate } from '../../store/settlement/late-window.ts';
import { storeNow } from '../../store/settlement/store-now.ts';
import { sweepOfAccount } from '../../store/settlement/sweep-of-account.ts';
import { WRAPPED_SOL_RESERVE } from '../../domain/reserves.ts';
import type { SettlementContext } from '../context.ts';
import { runStep, type Step } from '../step.ts';
import { refundReleasedLateFunds, replaceDeadLateRefunds, retryLateRefunds, type LateRefundsDeps, type RefundLateDeps } from './late-refunds.ts';
import { StrayWatch } from './stray-funds.ts';

/** What sweeping late funds touches. */
export type SweepLateDeps = Pick<SettlementContext, 'db' | 'view' | 'asset' | 'treasury' | 'chain' | 'shape' | 'fees' | 'outbox' | 'log' | 'random'>;
/** What a late-deposit pass touches: the late sweeps, and the late refunds it retries or replaces. */
export type LateDepositsDeps = SweepLateDeps & LateRefundsDeps & RefundLateDeps;

/** Finished orders a late-deposit pass reads: this many most recently finished, and this many more in rotation. */
const LATE_PER_PART = 100;

type Candidate = LateCandidate;

interface LateReads {
  balances: Map<string, AccountBalance>;
  /** Whether an asset is SOL (wrapped): a configuration lookup, asked only when it decides something. */
  native: (assetId: string) => boolean;
}

/** Per candidate, in order: the lamports its owner holds (stray SOL), and its late funds if any. */
type LatePlan = { r: Candidate; ownerLamports: bigint; late: boolean }[];

/**
 * Funds that reach a deposit account after its order is final (or after its deposit was swept) are
 * swept into a pool and refunded to the order's sender, less the order's network fee. Also replaces
 * late refunds whose transaction died, and looks for funds at the deposit owners outside their deposit
 * accounts (StrayWatch). The late sweeps are a Step; each sweep's own claim (a lock per deposit
 * account, after a fresh read) is in sweepLate, since two workers' passes can see the same funds.
 */
export class LateDeposits implements Step<LateDepositsDeps, Candidate[], LateReads, LatePlan> {
  readonly name = 'late deposits';
  /** Where the pass's rotation through its window goes on (an order id). */
  private rotation: bigint | null = null;
  private readonly strays: StrayWatch;

  constructor(private readonly ctx: LateDepositsDeps) {
    this.strays = new StrayWatch(ctx.db, ctx.view, ctx.log);
  }

  async pass(): Promise<number> {
    const ctx = this.ctx;
    const found = await runStep(ctx, this);
    // A failed read only delays those owners to the next rotation; the refunds below still run.
    await this.strays.scanTokens().catch((e: unknown) => ctx.log({ err: e }, 'stray token account read failed'));
    await retryLateRefunds(ctx);
    await refundReleasedLateFunds(ctx);
    await replaceDeadLateRefunds(ctx);
    return found;
  }

  /** The next candidates of the window (the rotation moves on), and their accounts' and owners' balances. */
  async claim(ctx: LateDepositsDeps): Promise<{ claimed: Candidate[]; reads: LateReads } | null> {
    const { rows, next } = await lateDepositCandidates(ctx.db, this.rotation, LATE_PER_PART);
    this.rotation = next;
    if (rows.length === 0) return null;
    const balances = await ctx.view.balances([...rows.map((r) => r.deposit_account), ...rows.map((r) => r.deposit_owner)], 'confirmed');
    // An asset the configuration no longer has is not SOL: its token funds still count as late (and fail
    // their own sweep, below), without failing the plan of every other candidate.
    return { claimed: rows, reads: { balances, native: (id) => knownAsset(ctx, id)?.native ?? false } };
  }

  plan(rows: Candidate[], reads: LateReads): LatePlan {
    return rows.map((r) => ({
      r,
      ownerLamports: reads.balances.get(r.deposit_owner)?.lamports ?? 0n,
      late: lateFunds(() => reads.native(r.source_asset_id), reads.balances.get(r.deposit_account)) !== null,
    }));
  }

  async commit(ctx: LateDepositsDeps, plan: LatePlan): Promise<number> {
    let found = 0;
    for (const { r, ownerLamports, late } of plan) {
      this.strays.noticeSol(r.tracking_id, r.deposit_owner, ownerLamports);
      if (!late) continue;
      found++;
      // One account's failed sweep (its asset gone from the configuration, a chain read failing) holds up
      // only that account: thrown out of the pass, it stopped every candidate after it and the late refunds.
      await sweepLate(ctx, String(r.id), r.tracking_id, r.deposit_owner, r.deposit_account, r.source_asset_id).catch((e: unknown) =>
        ctx.log({ err: e, trackingId: r.tracking_id, assetId: r.source_asset_id }, 'late funds found; their sweep failed, retried on a later pass'),
      );
    }
    return found;
  }
}

function knownAsset(ctx: Pick<LateDepositsDeps, 'asset'>, id: string): ReturnType<LateDepositsDeps['asset']> | null {
  try {
    return ctx.asset(id);
  } catch {
    return null;
  }
}

/**
 * What a deposit account holds after its order is done, if anything. SOL sent to a wrapped-SOL deposit
 * address whose account is closed (or was never made) sits at an address only the token programs can
 * touch: reopening the account moves it (all of it is the sender's: the account had no rent of its
 * own). Too few lamports to pay the rent are left there.
 */
function lateFunds(native: () => boolean, b: AccountBalance | undefined): { amount: bigint; reopen: boolean } | null {
  if (b?.exists && b.tokenAmount === null && native() && b.lamports > WRAPPED_SOL_RESERVE) return { amount: b.lamports, reopen: true };
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
async function sweepLate(ctx: SweepLateDeps, orderId: string, trackingId: string, depositOwner: string, depositAccount: Address, assetId: string): Promise<void> {
  const asset = ctx.asset(assetId);
  const pools = ctx.treasury.pools(assetId);
  const pool = pools[ctx.random.int(pools.length)]!;
  // The store's clock, like chain_txs.updated_at.
  const readAt = await storeNow(ctx.db);
  if (await sweepOfAccount(ctx.db, depositAccount)) return;
  const funds = lateFunds(() => asset.native, (await ctx.view.balances([depositAccount], 'confirmed')).get(depositAccount));
  if (!funds) return;
  const { amount, reopen } = funds;
  const [blockhash] = await Promise.all([ctx.chain().latestBlockhash(), ctx.fees.ready()]);
  const signed = await buildSweep(ctx.shape(blockhash, 'lateSweep', SWEEP_RECORD), {
    asset,
    poolWallet: pool.address,
    poolHolding: pool.holding,
    items: [{ owner: await ctx.treasury.depositSigner(trackingId, depositOwner), depositAccount, amount, reopen }],
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
