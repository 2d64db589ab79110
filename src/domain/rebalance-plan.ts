/**
 * Aggregate inventory rebalancing (pure). Hush settles swaps from inventory: deposits land in the
 * source-asset pools, payouts leave the destination-asset pools, so pools drift. Rebalancing moves
 * value from over-target assets to under-target ones in whole *lots* of a configured USD size, so no
 * rebalance amount mirrors any order's amount (that would link a deposit to a payout on chain).
 *
 * All arithmetic is exact: USD values are fractions, lot counts are floors, the input amount of a
 * move is the floor of a whole number of lots in the source asset, and `minAmountOut` is the floor of
 * its value in the destination asset less the allowed slippage.
 */
import type { Fraction } from './exact-decimal.ts';
import type { Price } from './price.ts';
import { type PricedAsset, convertForSwap } from './swap-conversion.ts';

export interface RebalanceMove {
  fromAssetId: string;
  toAssetId: string;
  /** Base units of the source asset: ⌊lots × lotUsd⌋ in source units, never more than its surplus. */
  amountIn: bigint;
  /** Base units of the destination asset: the value of amountIn less `slippageBps`, rounded down. */
  minAmountOut: bigint;
  /** Whole lots this move carries (≥ 1). */
  lots: bigint;
}

export interface RebalancePolicy {
  /** Size of one lot in USD (exact, > 0). Every move is a whole number of lots. */
  lotUsd: Price;
  /** Worst price the move accepts, in bps below the fair conversion (0..9999). */
  slippageBps: number;
  /**
   * Dead band around each target in bps of the target: an asset sells only above
   * target × (1 + tol) and buys only below target × (1 − tol). Keeps small drifts from churning.
   */
  toleranceBps: number;
}

export const DEFAULT_REBALANCE_POLICY: RebalancePolicy = { lotUsd: { num: 1000n, den: 1n }, slippageBps: 100, toleranceBps: 1000 };

const BPS = 10_000n;

/** Whole lots of value in `units` of an asset, rounded down. */
export function lotsIn(units: bigint, asset: PricedAsset, lotUsd: Fraction): bigint {
  if (units <= 0n) return 0n;
  return (units * asset.price.num * lotUsd.den) / (asset.price.den * 10n ** BigInt(asset.decimals) * lotUsd.num);
}

/** Base units of an asset worth exactly `lots` lots, rounded down. */
export function unitsForLots(lots: bigint, asset: PricedAsset, lotUsd: Fraction): bigint {
  return (lots * lotUsd.num * asset.price.den * 10n ** BigInt(asset.decimals)) / (lotUsd.den * asset.price.num);
}

interface Side {
  assetId: string;
  lots: bigint;
}

function pickLargest(sides: Side[]): Side | undefined {
  let best: Side | undefined;
  for (const s of sides) {
    if (s.lots <= 0n) continue;
    if (!best || s.lots > best.lots || (s.lots === best.lots && s.assetId < best.assetId)) best = s;
  }
  return best;
}

/**
 * Proposes moves from over-target to under-target assets. Assets without a target or without a
 * price are left alone; inventory missing for a targeted asset counts as zero. Greedy: repeatedly
 * pairs the largest surplus with the largest deficit (ties by assetId, so the plan is deterministic),
 * moving min(surplus, deficit) rounded down to whole lots. Each pair appears at most once because
 * every step exhausts one side.
 */
export function planRebalance(
  inventory: ReadonlyMap<string, bigint>,
  targets: ReadonlyMap<string, bigint>,
  prices: ReadonlyMap<string, PricedAsset>,
  policy: RebalancePolicy = DEFAULT_REBALANCE_POLICY,
): RebalanceMove[] {
  if (policy.lotUsd.num <= 0n || policy.lotUsd.den <= 0n) throw new RangeError('lotUsd must be positive');
  if (!Number.isInteger(policy.toleranceBps) || policy.toleranceBps < 0 || policy.toleranceBps > 10_000) {
    throw new RangeError('toleranceBps must be an integer in 0..10000');
  }
  const tol = BigInt(policy.toleranceBps);
  const sellers: Side[] = [];
  const buyers: Side[] = [];
  for (const [assetId, target] of [...targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (target < 0n) throw new RangeError(`target for ${assetId} must not be negative`);
    const asset = prices.get(assetId);
    if (!asset) continue;
    const held = inventory.get(assetId) ?? 0n;
    // held > target × (1 + tol/B)  ⇔  held × B > target × (B + tol)
    if (held * BPS > target * (BPS + tol)) {
      sellers.push({ assetId, lots: lotsIn(held - target, asset, policy.lotUsd) });
    } else if (held * BPS < target * (BPS - tol)) {
      buyers.push({ assetId, lots: lotsIn(target - held, asset, policy.lotUsd) });
    }
  }
  const moves: RebalanceMove[] = [];
  for (;;) {
    const seller = pickLargest(sellers);
    const buyer = pickLargest(buyers);
    if (!seller || !buyer) break;
    const lots = seller.lots < buyer.lots ? seller.lots : buyer.lots;
    const from = prices.get(seller.assetId)!;
    const to = prices.get(buyer.assetId)!;
    const amountIn = unitsForLots(lots, from, policy.lotUsd);
    seller.lots -= lots;
    buyer.lots -= lots;
    if (amountIn <= 0n) continue;
    moves.push({ fromAssetId: seller.assetId, toAssetId: buyer.assetId, amountIn, minAmountOut: convertForSwap(amountIn, from, to, policy.slippageBps), lots });
  }
  return moves;
}

/** USD value of `units` of an asset, exact (for reports and tests). */
export function usdValue(units: bigint, asset: PricedAsset): Fraction {
  return { num: units * asset.price.num, den: asset.price.den * 10n ** BigInt(asset.decimals) };
}
