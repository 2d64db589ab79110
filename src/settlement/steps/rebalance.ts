import { signature as asSignature } from '@solana/kit';
import { recordMovement } from '../../store/settlement/record-movements.ts';
import { runRebalance, type Rebalancer, type RebalancePolicy } from '../../rebalance/rebalancer.ts';
import type { FreshPrices } from '../../prices/price-source.ts';
import type { SettlementContext } from '../context.ts';

/** What rebalancing touches. */
export type RebalanceDeps = Pick<SettlementContext, 'db' | 'config' | 'pools' | 'alert' | 'chain' | 'treasury' | 'asset' | 'clock'>;

export interface RebalanceSettings {
  rebalancer?: Rebalancer;
  prices?: FreshPrices;
  /** Inventory each asset's pools should hold in total (base units). */
  inventoryTargets?: Map<string, bigint>;
  /** HUSH_REBALANCE_LOT_USD and HUSH_REBALANCE_SLIPPAGE_BPS over the default tolerance band. */
  policy: RebalancePolicy;
}

/**
 * Aggregate rebalancing on a schedule, in lots unrelated to any order: assets above their target band
 * fund assets below it. Each landed move is put on the ledger from the transaction's own balance
 * changes. Without a rebalancer, a skew outside the band is only reported (ALERT).
 */
export async function rebalance(ctx: RebalanceDeps, s: RebalanceSettings): Promise<number> {
  if (!s.inventoryTargets || !s.prices) return 0;
  const inventory = await ctx.pools.inventory();
  for (const [assetId, target] of s.inventoryTargets) {
    const held = inventory.get(assetId) ?? 0n;
    if (held * 2n < target) ctx.alert('inventory_skew', { assetId, held: held.toString(), target: target.toString() }, 'ALERT: inventory skew: pools below half their target');
  }
  if (!s.rebalancer) return 0;
  const done = await runRebalance(s.rebalancer, inventory, s.inventoryTargets, s.prices, ctx.config.assets, s.policy);
  for (const { result } of done) if (result.signature) await recordExternal(ctx, result.signature, 'rebalance', 'external:rebalancing');
  return done.length;
}

/**
 * Records a transaction Hush did not build on the ledger from its balance changes: every pool and the
 * fee payer by their own deltas, the counterparty for the rest of each asset.
 */
async function recordExternal(ctx: RebalanceDeps, signature: string, kind: 'rebalance' | 'funding', counterparty: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const tx = await ctx.chain().rpc.getTransaction(asSignature(signature), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (tx?.meta) {
      const meta = tx.meta;
      const keys = tx.transaction.message.accountKeys as readonly string[];
      const legs: { account: string; assetId: string; amount: bigint }[] = [];
      keys.forEach((k, idx) => {
        const pool = ctx.treasury.poolByHolding(k);
        const lamports = BigInt(meta.postBalances[idx]!) - BigInt(meta.preBalances[idx]!);
        if (k === ctx.treasury.feePayer.address && lamports !== 0n) legs.push({ account: `feepayer:${k}`, assetId: 'sol', amount: lamports });
        if (pool && ctx.asset(pool.assetId).native && lamports !== 0n) legs.push({ account: `pool:${k}`, assetId: pool.assetId, amount: lamports });
        if (pool && !ctx.asset(pool.assetId).native) {
          const bal = (list: typeof meta.preTokenBalances) => BigInt(list?.find((b) => b.accountIndex === idx)?.uiTokenAmount.amount ?? '0');
          const delta = bal(meta.postTokenBalances) - bal(meta.preTokenBalances);
          if (delta !== 0n) legs.push({ account: `pool:${k}`, assetId: pool.assetId, amount: delta });
        }
      });
      const sums = new Map<string, bigint>();
      for (const l of legs) sums.set(l.assetId, (sums.get(l.assetId) ?? 0n) + l.amount);
      for (const [assetId, sum] of sums) legs.push({ account: counterparty, assetId, amount: -sum });
      await recordMovement(ctx.db, `${kind}:${signature}`, kind, legs);
      return;
    }
    await ctx.clock.sleep(100);
  }
  ctx.alert('rebalance_not_visible', { signature }, 'ALERT: rebalance transaction not visible; ledger not updated');
}
