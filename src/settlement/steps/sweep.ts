import { randomInt } from 'node:crypto';
import type { Address } from '@solana/kit';
import { buildSweep, type SweepItem } from '../../chain/hush-transactions.ts';
import { assetsWithUnsweptDeposits } from '../../store/settlement/assets-with-unswept-deposits.ts';
import { attachSweep } from '../../store/settlement/attach-sweep.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lockUnsweptDeposits } from '../../store/settlement/lock-unswept-deposits.ts';
import { relockUnsweptDeposits } from '../../store/settlement/relock-unswept-deposits.ts';
import { faultPoint } from '../outbox.ts';
import type { SettlementContext } from '../context.ts';

/** What a sweep touches. */
export type SweepDeps = Pick<SettlementContext, 'db' | 'view' | 'chain' | 'shape' | 'asset' | 'treasury' | 'outbox' | 'alerted' | 'alert' | 'log' | 'slotMs'>;

const SWEEP_BATCH = 4;
/** Sweeps wait this many slots after the deposit watch last confirmed deposits. */
const SWEEP_QUIET_SLOTS = 4;
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
  ) {}

  async tick(): Promise<number> {
    const ctx = this.ctx;
    // Deferred at most SWEEP_MAX_DEFERRALS ticks in a row: under steady traffic there is never a quiet
    // moment, and unswept deposits are inventory the pools need.
    const busy = Date.now() - this.lastBurstAt() < SWEEP_QUIET_SLOTS * ctx.slotMs;
    if (busy && this.deferrals < SWEEP_MAX_DEFERRALS) {
      this.deferrals++;
      return 0;
    }
    this.deferrals = 0;
    let swept = 0;
    // Nothing unswept at all, finalized or not (an idle Hush): the chain need not be asked for its height.
    if ((await assetsWithUnsweptDeposits(ctx.db, ANY_HEIGHT)).length === 0) return 0;
    const finalizedHeight = await ctx.view.blockHeight('finalized');
    for (const assetId of await assetsWithUnsweptDeposits(ctx.db, finalizedHeight)) {
      const asset = ctx.asset(assetId);
      const pool = ctx.treasury.pools(assetId)[randomInt(ctx.treasury.pools(assetId).length)]!;
      // From after the last batch of the asset, round again from the start once past the end.
      const after = this.sweptUpTo.get(assetId) ?? '0';
      let batch = await lockUnsweptDeposits(ctx.db, finalizedHeight, assetId, SWEEP_BATCH, after);
      if (batch.length === 0 && after !== '0') batch = await lockUnsweptDeposits(ctx.db, finalizedHeight, assetId, SWEEP_BATCH);
      if (batch.length === 0) continue;
      this.sweptUpTo.set(assetId, batch[batch.length - 1]!.orderId);
      const [blockhash, balances] = await Promise.all([ctx.chain().latestBlockhash(), ctx.view.balances(batch.map((b) => b.depositAccount), 'confirmed')]);
      const items: (SweepItem & { orderId: string; extra: bigint; reserve: bigint })[] = [];
      for (const b of batch) {
        const balance = balances.get(b.depositAccount);
        if (!balance || balance.tokenAmount === null) {
          if (balance && ctx.alerted.unsweepable.first(b.orderId)) {
            ctx.alert('deposit_unsweepable', { trackingId: b.trackingId, depositAccount: b.depositAccount }, 'ALERT: a confirmed deposit has no token account to sweep; it is skipped, the others are swept');
          }
          continue;
        }
        const amount = balance.tokenAmount;
        // Funds sent after the deposit was confirmed are no part of the order: swept with it, refunded as late.
        const extra = amount > b.depositAmount ? amount - b.depositAmount : 0n;
        if (extra > 0n) ctx.log({ trackingId: b.trackingId, amount: extra.toString() }, 'funds sent after the deposit found; sweeping them for a refund');
        items.push({ owner: await ctx.treasury.depositSigner(b.trackingId), depositAccount: b.depositAccount as Address, amount, orderId: b.orderId, extra, reserve: balance.lamports - amount });
      }
      if (items.length === 0) continue;
      const signed = await buildSweep(ctx.shape(blockhash), { asset, poolWallet: pool.address, poolHolding: pool.holding, items });
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
      if (!result) continue;
      faultPoint('sweep-recorded');
      await ctx.outbox.sendAll([result.wire]);
      faultPoint('sweep-sent');
      swept += result.count;
    }
    return swept;
  }
}
