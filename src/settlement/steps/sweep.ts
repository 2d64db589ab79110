import { SWEEP_QUIET_SLOTS, sweepBatchesPerTick } from '../timing.ts';
import { SWEEP_RECORD } from '../../domain/chain-record.ts';
import { buildSweep, type SweepItem } from '../../chain/hush-transactions.ts';
import { assetsWithUnsweptDeposits } from '../../store/settlement/assets-with-unswept-deposits.ts';
import { attachSweep } from '../../store/settlement/attach-sweep.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lockUnsweptDeposits } from '../../store/settlement/lock-unswept-deposits.ts';
import type { UnsweptDeposit } from '../../store/settlement/sweepable.ts';
import { relockUnsweptDeposits } from '../../store/settlement/relock-unswept-deposits.ts';
import type { SettlementContext } from '../context.ts';
import { runStep, type Step } from '../step.ts';
import type { AccountBalance } from '../../chain/chain-view.ts';
import type { FreshBlockhash } from '../../chain/solana-chain.ts';

/** What a sweep touches. */
export type SweepDeps = Pick<SettlementContext, 'db' | 'view' | 'chain' | 'shape' | 'fees' | 'asset' | 'treasury' | 'outbox' | 'alerted' | 'alert' | 'log' | 'slotMs' | 'running' | 'maxRps' | 'clock' | 'random' | 'faults'>;

const SWEEP_BATCH = 4;
const SWEEP_MAX_DEFERRALS = 3;

/** A block height past every deposit transaction's: asks the store whether anything is unswept at all. */
const ANY_HEIGHT = 1n << 62n;

/**
 * Moves confirmed deposits into a random pool of their asset, several per transaction. Reads and
 * signing happen before the database transaction, which only re-locks the deposits and records the
 * sweep (an open transaction holds up every other query on PGlite). Waits while deposits are arriving
 * (a burst): sweeping is bulk work with no deadline, and payouts come first.
 */
export class Sweeps {
  private deferrals = 0;
  /** Per asset, the last order id a sweep batch took: the next batch starts after it (lockUnsweptDeposits). */
  private readonly sweptUpTo = new Map<string, string>();

  constructor(
    private readonly ctx: SweepDeps,
    /** When the deposit watch last had deposits to confirm. */
    private readonly lastBurstAt: () => number,
    /** How often tick runs (the sweep loop's interval). */
    private readonly intervalMs: number,
  ) {}

  async tick(): Promise<number> {
    const ctx = this.ctx;
    // Deferred at most SWEEP_MAX_DEFERRALS ticks in a row: under steady traffic there is never a quiet
    // moment, and unswept deposits are inventory the pools need.
    const busy = ctx.clock.now() - this.lastBurstAt() < SWEEP_QUIET_SLOTS * ctx.slotMs;
    if (busy && this.deferrals < SWEEP_MAX_DEFERRALS) {
      this.deferrals++;
      return 0;
    }
    this.deferrals = 0;
    let swept = 0;
    // Nothing unswept at all, finalized or not (an idle Hush): the chain need not be asked for its height.
    if ((await assetsWithUnsweptDeposits(ctx.db, ANY_HEIGHT)).length === 0) return 0;
    const finalizedHeight = await ctx.view.blockHeight('finalized');
    // Batches of an asset go on while they come back full: one a tick kept up with 0.2 deposits a second per
    // asset under steady traffic (a tick in four at the 5 s interval), less than one order a second over four
    // assets; bench:privacy at 16 orders a second left thousands unswept for minutes.
    const batches = sweepBatchesPerTick(ctx.maxRps, this.intervalMs);
    for (const assetId of await assetsWithUnsweptDeposits(ctx.db, finalizedHeight)) {
      // One asset's failure (say, an asset the configuration no longer has) holds up its own sweeps only:
      // thrown out of the loop, it stopped every asset listed after it, each pass.
      try {
        for (let n = 0; n < batches && ctx.running(); n++) {
          const batch = await runStep(ctx, this.assetStep(assetId, finalizedHeight));
          swept += batch;
          if (batch < SWEEP_BATCH) break;
        }
      } catch (e) {
        ctx.log({ err: e, assetId }, 'sweep of an asset failed; the other assets are swept');
      }
    }
    return swept;
  }

  /**
   * One asset's sweep: claim (a batch of its unswept deposits, from after the last one, and their
   * balances), plan (pure: what each account holds, the part beyond its deposit), commit (sign, record
   * under a re-lock with the attachment, then send).
   */
  private assetStep(assetId: string, finalizedHeight: bigint): Step<SweepDeps, UnsweptDeposit[], SweepReads, SweepPlan> {
    return {
      name: 'sweep',
      claim: async (ctx) => {
        // An asset the configuration no longer has throws before anything is locked.
        ctx.asset(assetId);
        // From after the last batch of the asset, round again from the start once past the end.
        const after = this.sweptUpTo.get(assetId) ?? '0';
        let batch = await lockUnsweptDeposits(ctx.db, finalizedHeight, assetId, SWEEP_BATCH, after);
        if (batch.length === 0 && after !== '0') batch = await lockUnsweptDeposits(ctx.db, finalizedHeight, assetId, SWEEP_BATCH);
        if (batch.length === 0) return null;
        this.sweptUpTo.set(assetId, batch[batch.length - 1]!.orderId);
        const [blockhash, balances] = await Promise.all([ctx.chain().latestBlockhash(), ctx.view.balances(batch.map((b) => b.depositAccount), 'confirmed')]);
        return { claimed: batch, reads: { blockhash, balances } };
      },
      plan: (batch, { blockhash, balances }) => ({
        assetId,
        blockhash,
        entries: batch.flatMap((b): SweepEntry[] => {
          const balance = balances.get(b.depositAccount);
          if (!balance) return [];
          if (balance.tokenAmount === null) return [{ b, unsweepable: true }];
          const amount = balance.tokenAmount;
          // Funds sent after the deposit was confirmed are no part of the order: swept with it, refunded as late.
          const extra = amount > b.depositAmount ? amount - b.depositAmount : 0n;
          return [{ b, unsweepable: false, amount, extra, reserve: balance.lamports - amount }];
        }),
      }),
      commit: (ctx, plan) => commitSweep(ctx, plan),
    };
  }
}

type SweepEntry = { b: UnsweptDeposit; unsweepable: true } | { b: UnsweptDeposit; unsweepable: false; amount: bigint; extra: bigint; reserve: bigint };

interface SweepReads {
  blockhash: FreshBlockhash;
  balances: Map<string, AccountBalance>;
}

/** Per deposit of the batch, in order: unsweepable (no token account), or what its account holds. */
interface SweepPlan {
  assetId: string;
  blockhash: FreshBlockhash;
  entries: SweepEntry[];
}

/** Signs the sweep, records it (re-locked, attached to its orders) and sends it; the deposits it swept. */
async function commitSweep(ctx: SweepDeps, { assetId, blockhash, entries }: SweepPlan): Promise<number> {
  const asset = ctx.asset(assetId);
  const pool = ctx.treasury.pools(assetId)[ctx.random.int(ctx.treasury.pools(assetId).length)]!;
  const items: (SweepItem & { orderId: string; extra: bigint; reserve: bigint })[] = [];
  for (const e of entries) {
    const b = e.b;
    if (e.unsweepable) {
      if (ctx.alerted.unsweepable.first(b.orderId)) {
        ctx.alert('deposit_unsweepable', { trackingId: b.trackingId, depositAccount: b.depositAccount }, 'ALERT: a confirmed deposit has no token account to sweep; it is skipped, the others are swept');
      }
      continue;
    }
    if (e.extra > 0n) ctx.log({ trackingId: b.trackingId, amount: e.extra.toString() }, 'funds sent after the deposit found; sweeping them for a refund');
    items.push({ owner: await ctx.treasury.depositSigner(b.trackingId, b.depositOwner), depositAccount: b.depositAccount, amount: e.amount, orderId: b.orderId, extra: e.extra, reserve: e.reserve });
  }
  if (items.length === 0) return 0;
  await ctx.fees.ready();
  const signed = await buildSweep(ctx.shape(blockhash, 'sweep', SWEEP_RECORD), { asset, poolWallet: pool.address, poolHolding: pool.holding, items });
  const result = await ctx.db.transaction(async (tx) => {
    // Someone swept or took one of them since it was read: this signed sweep is dropped, never sent.
    const still = await relockUnsweptDeposits(tx, items.map((i) => i.orderId));
    if (still.size !== items.length) return null;
    const id = await insertChainTx(tx, {
      kind: 'sweep',
      orderId: null,
      assetId,
      amount: items.reduce((s, i) => s + i.amount, 0n),
      source: 'deposits',
      destination: pool.holding,
      ...signed,
      meta: {
        items: items.flatMap((i) => [
          { orderId: i.orderId, depositAccount: i.depositAccount, amount: (i.amount - i.extra).toString(), ...(asset.native ? { reserve: i.reserve.toString() } : {}) },
          ...(i.extra > 0n ? [{ orderId: i.orderId, depositAccount: i.depositAccount, amount: i.extra.toString(), late: true }] : []),
        ]),
      },
    });
    if (id === null) return null;
    await attachSweep(tx, items.map((i) => i.orderId), id);
    return { id, wire: signed.wire, count: items.length };
  });
  if (!result) return 0;
  ctx.faults.reach('sweep-recorded');
  await ctx.outbox.sendAll([result.wire]);
  ctx.faults.reach('sweep-sent');
  return result.count;
}
