/**
 * The rebalancing port. Hush settles swaps from inventory (deposits join the source-asset pools,
 * payouts leave the destination-asset pools) and rebalances in aggregate: `planRebalance`
 * (src/domain/rebalance-plan.ts) proposes lot-sized moves from over-target to under-target assets,
 * and a `Rebalancer` carries one move out. The only one is LocalFaucetRebalancer
 * (src/rebalance/local-faucet-rebalancer.ts): on the embedded chain it refills the under-target asset
 * from the local faucet. On a real cluster the operator rebalances by hand (docs/architecture.md).
 */
import type { AssetRegistry } from '../config/assets.ts';
import { type RebalanceMove, type RebalancePolicy, planRebalance } from '../domain/rebalance-plan.ts';
import type { PricedAsset } from '../domain/swap-conversion.ts';
import type { FreshPrices } from '../prices/price-source.ts';

export interface RebalanceRequest {
  fromAssetId: string;
  toAssetId: string;
  /** Base units of the source asset to sell. */
  amountIn: bigint;
  /** Base units of the destination asset below which the move must not execute. */
  minAmountOut: bigint;
}

export interface RebalanceResult {
  /** The submitted transaction, or null when nothing went on chain. */
  signature: string | null;
  /** Source base units spent (0 when the faucet refilled without selling anything). */
  amountIn: bigint;
  /** Destination base units obtained: quoted (Jupiter, ≥ minAmountOut) or minted (faucet). */
  amountOut: bigint;
}

export interface Rebalancer {
  rebalance(plan: RebalanceRequest): Promise<RebalanceResult>;
}

/** A rebalancing move could not be carried out (quote refused, bad transaction, RPC failure). Internal. */
export class RebalanceError extends Error {
  override readonly name = 'RebalanceError';
  constructor(
    message: string,
    readonly code: string = 'REBALANCE_FAILED',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Fresh, validated prices for every swappable asset that has one now (others are left out). */
export function pricedAssets(prices: FreshPrices, assets: AssetRegistry): Map<string, PricedAsset> {
  const out = new Map<string, PricedAsset>();
  for (const a of assets.list) {
    if (!a.swappable) continue;
    try {
      out.set(a.assetId, { price: prices.pairRate(a.assetId, a.assetId).from.price, decimals: a.decimals });
    } catch {
      /* no fresh price: this asset sits this round out */
    }
  }
  return out;
}

/** Plans with fresh prices, then runs each move in order; stops at the first failure (next run retries). */
export async function runRebalance(
  rebalancer: Rebalancer,
  inventory: ReadonlyMap<string, bigint>,
  targets: ReadonlyMap<string, bigint>,
  prices: FreshPrices,
  assets: AssetRegistry,
  policy?: RebalancePolicy,
): Promise<{ move: RebalanceMove; result: RebalanceResult }[]> {
  const moves = planRebalance(inventory, targets, pricedAssets(prices, assets), policy);
  const done: { move: RebalanceMove; result: RebalanceResult }[] = [];
  for (const move of moves) {
    const result = await rebalancer.rebalance({ fromAssetId: move.fromAssetId, toAssetId: move.toAssetId, amountIn: move.amountIn, minAmountOut: move.minAmountOut });
    done.push({ move, result });
  }
  return done;
}

export { planRebalance };
export type { RebalanceMove, RebalancePolicy };
