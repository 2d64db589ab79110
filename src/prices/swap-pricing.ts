/**
 * The glue the quote path needs for a private swap: validated fresh prices for both assets, the
 * configured spread, and a `convert` for `quoteCrossAsset` (docs/spec.md §4:
 * `amountOut = floor(convert(amountIn − fee))`). Reads memory only.
 */
import type { Price } from '../domain/price.ts';
import type { Asset, AssetRegistry } from '../config/assets.ts';
import { HushError } from '../domain/errors.ts';
import { type Amount, U64_MAX, toAmount } from '../domain/money.ts';
import { type PricedAsset, convertForSwap } from '../domain/swap-conversion.ts';
import type { FreshPrices, PairRate } from './price-source.ts';

export interface PricedPair {
  from: PricedAsset;
  to: PricedAsset;
  quotes: PairRate;
  spreadBps: number;
}

export class SwapPricing {
  constructor(
    private readonly prices: FreshPrices,
    private readonly assets: AssetRegistry,
    readonly spreadBps: number,
  ) {}

  private swappable(assetId: string, pair: { sourceAssetId: string; destinationAssetId: string }): Asset {
    const a = this.assets.get(assetId);
    if (!a || !a.swappable) throw new HushError('PAIR_NOT_SUPPORTED', `Swapping ${pair.sourceAssetId} to ${pair.destinationAssetId} is not supported`, pair);
    return a;
  }

  /** A fresh price of one asset, or null when there is none right now (never throws). */
  freshPrice(assetId: string): Price | null {
    return this.prices.priceNow(assetId)?.price ?? null;
  }

  /** Both sides priced and validated now; throws PAIR_NOT_SUPPORTED / SERVICE_UNAVAILABLE. */
  pair(sourceAssetId: string, destinationAssetId: string): PricedPair {
    if (sourceAssetId === destinationAssetId) throw new RangeError('a same-asset send is not a swap');
    const ids = { sourceAssetId, destinationAssetId };
    const source = this.swappable(sourceAssetId, ids);
    const destination = this.swappable(destinationAssetId, ids);
    const quotes = this.prices.pairRate(sourceAssetId, destinationAssetId);
    return {
      from: { price: quotes.from.price, decimals: source.decimals },
      to: { price: quotes.to.price, decimals: destination.decimals },
      quotes,
      spreadBps: this.spreadBps,
    };
  }

  /**
   * A `convert` for quoteCrossAsset, on prices validated once, now. A result beyond u64 is
   * AMOUNT_TOO_HIGH with the given bounds (the source asset's configured bounds by default).
   */
  converter(sourceAssetId: string, destinationAssetId: string, bounds?: { min: bigint; max: bigint }): (net: Amount) => Amount {
    return this.converterFor(this.pair(sourceAssetId, destinationAssetId), bounds ?? { min: this.assets.get(sourceAssetId)!.min, max: this.assets.get(sourceAssetId)!.max });
  }

  /** The same, on a pair the caller already validated. */
  converterFor(p: PricedPair, b: { min: bigint; max: bigint }): (net: Amount) => Amount {
    return (net) => {
      const out = convertForSwap(net, p.from, p.to, p.spreadBps);
      if (out > U64_MAX) throw new HushError('AMOUNT_TOO_HIGH', 'the converted amount exceeds the largest token amount', { min: b.min.toString(), max: b.max.toString() });
      return toAmount(out);
    };
  }
}
