import type { Address } from '@solana/kit';
import { buildDrain, type DrainParams } from '../../chain/drain-transaction.ts';
import { DRAIN_RECORD } from '../../domain/chain-record.ts';
import type { DrainMeta } from '../../store/settlement/chain-tx.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { retiredInFlight } from '../../store/settlement/retired-in-flight.ts';
import { markDrained, readRetiredWallets, type RetiredWallet } from '../../store/treasury-wallets-store.ts';
import type { SettlementContext } from '../context.ts';

export type DrainDeps = Pick<SettlementContext, 'db' | 'view' | 'chain' | 'treasury' | 'asset' | 'shape' | 'fees' | 'outbox' | 'log' | 'alert'>;

/**
 * Drains the retired seeds' wallets into the current seed's (docs/operations.md "Rotate the treasury seed"), each
 * once nothing in flight needs it: a pool once no pending transaction pays out of it, a fee payer once its seed's
 * pools are drained and nothing it signed is pending. Each drain is recorded before it is sent and settled by the
 * fate loop like any transaction (a dead one is signed again on a later pass); a wallet is marked drained when the
 * chain shows it empty with nothing of it pending. Costs nothing once every retired wallet is drained.
 */
export class DrainRetired {
  private done = false;

  constructor(private readonly ctx: DrainDeps) {}

  /** How many drains this pass sent. */
  async tick(): Promise<number> {
    const ctx = this.ctx;
    if (this.done || ctx.treasury.retired.length === 0) return 0;
    const held = new Set(ctx.treasury.retired.map((t) => t.feePayer.address as string));
    const open = (await readRetiredWallets(ctx.db)).filter((w) => w.drainedAt === null && held.has(w.feePayer));
    if (open.length === 0) {
      this.done = true;
      ctx.log({ retiredSeeds: held.size }, 'every retired wallet is drained: the retired seeds may be removed from TREASURY_RETIRED_SEEDS');
      return 0;
    }
    // Anything pending from before the latest rotation may be signed by a retired fee payer.
    const rotatedAt = new Date(Math.max(...open.map((w) => w.retiredAt.getTime())));
    const [{ busy, signedBefore }, balances] = await Promise.all([
      retiredInFlight(ctx.db, open.map((w) => w.holding), rotatedAt),
      ctx.view.balances(open.map((w) => w.holding), 'confirmed'),
    ]);
    let sent = 0;
    for (const w of open) {
      if (busy.has(w.holding)) continue;
      if (w.role === 'feepayer' && (signedBefore || open.some((p) => p.role === 'pool' && p.feePayer === w.feePayer))) continue;
      const b = balances.get(w.holding);
      const native = w.role === 'feepayer' || ctx.asset(w.assetId).native;
      const empty = native ? (b?.lamports ?? 0n) === 0n : !b?.exists;
      if (empty) {
        if (await markDrained(ctx.db, w.holding)) ctx.log({ wallet: w.holding, role: w.role, assetId: w.assetId }, 'retired wallet drained');
        continue;
      }
      if (await this.drain(w, native ? b!.lamports : (b!.tokenAmount ?? 0n), native)) sent++;
    }
    return sent;
  }

  private async drain(w: RetiredWallet, amount: bigint, native: boolean): Promise<boolean> {
    const ctx = this.ctx;
    const plan = this.plan(w, amount, native);
    if (!plan) return false;
    const [blockhash] = await Promise.all([ctx.chain().latestBlockhash(), ctx.fees.ready()]);
    const signed = await buildDrain(ctx.shape(blockhash, 'sweep', DRAIN_RECORD), plan.params);
    const id = await insertChainTx(ctx.db, {
      kind: 'drain',
      orderId: null,
      assetId: w.assetId,
      amount,
      source: w.holding,
      destination: plan.destination,
      signature: signed.signature,
      wire: signed.wire,
      lastValidBlockHeight: signed.lastValidBlockHeight,
      meta: plan.meta,
    });
    if (id === null) return false;
    ctx.log({ wallet: w.holding, role: w.role, assetId: w.assetId, amount: amount.toString(), to: plan.destination, signature: signed.signature }, 'draining a retired wallet');
    await ctx.outbox.sendAll([signed.wire]);
    return true;
  }

  /** The retired wallet's signer and where its funds go: the fee payer to the fee payer, a pool to the pool of its index. */
  private plan(w: RetiredWallet, amount: bigint, native: boolean): { params: DrainParams; destination: Address; meta: DrainMeta } | null {
    const t = this.ctx.treasury;
    const seed = t.retired.find((r) => r.feePayer.address === w.feePayer);
    if (!seed) return null;
    if (w.role === 'feepayer') {
      return { params: { kind: 'lamports', from: seed.feePayer, to: t.feePayer.address, amount }, destination: t.feePayer.address, meta: { from: 'feepayer', to: 'feepayer' } };
    }
    const pool = seed.poolByHolding(w.holding);
    const targets = t.pools(w.assetId);
    if (!pool || targets.length === 0) {
      this.ctx.alert('retired_wallet_stuck', { wallet: w.holding, assetId: w.assetId }, `ALERT: a retired pool of ${w.assetId} has no ${pool ? 'current pool of its asset' : 'key among the retired seeds'} to drain into; drain it by hand (docs/operations.md "Rotate the treasury seed")`);
      return null;
    }
    const to = targets[w.index % targets.length]!;
    if (native) return { params: { kind: 'lamports', from: pool.signer, to: to.holding, amount }, destination: to.holding, meta: { from: 'pool', to: 'pool' } };
    return {
      params: { kind: 'token', asset: this.ctx.asset(w.assetId), owner: pool.signer, account: w.holding as Address, to: to.address, amount },
      destination: to.holding,
      meta: { from: 'pool', to: 'pool', closes: w.holding },
    };
  }
}
