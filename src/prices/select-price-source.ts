/**
 * Picks the price source from configuration (HUSH_PRICE_SOURCE=embedded|pyth|jupiter, default
 * embedded) and wraps it in FreshPrices with the configured max age, confidence bound and refresh
 * period. Only swappable assets are tracked: prices exist for swaps, same-asset sends need none.
 */
import type { HushConfig } from '../config/config.ts';
import type { Price } from '../domain/price.ts';
import { EmbeddedPriceSource } from './embedded-prices.ts';
import type { FetchLike } from './http.ts';
import { JupiterPriceSource } from './jupiter-price.ts';
import { FreshPrices, type PriceSource } from './price-source.ts';
import { PythHermesSource, loadPythFeeds } from './pyth-hermes.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export type PriceSourceKind = HushConfig['priceSource'];

/**
 * The price settings in the units the sources take (src/config/price-settings.ts parsed them and applied
 * every default at start). Resolved once per process, in createFreshPrices; everyone else reads the config.
 */
export interface ResolvedPriceSettings {
  source: PriceSourceKind;
  maxAgeMs: number;
  maxConfidenceBps: number;
  spreadBps: number;
  refreshIntervalMs: number;
  pythUrl: string;
  jupiterUrl: string;
  pythApiKey?: string;
  jupiterApiKey?: string;
  walkBpsPerMinute: number;
  walkSeed?: string;
  priceFeedsFile?: string;
  rebalanceLotUsd: Price;
  rebalanceSlippageBps: number;
  priceOverridesFile?: string;
}

export function resolvePriceSettings(config: HushConfig): ResolvedPriceSettings {
  return {
    source: config.priceSource,
    maxAgeMs: config.priceMaxAgeS * 1000,
    maxConfidenceBps: config.priceMaxConfidenceBps,
    spreadBps: config.swapSpreadBps,
    refreshIntervalMs: config.priceRefreshS * 1000,
    pythUrl: config.pythUrl,
    jupiterUrl: config.jupiterUrl,
    pythApiKey: config.pythApiKey,
    jupiterApiKey: config.jupiterApiKey,
    walkBpsPerMinute: config.priceWalkBpsPerMinute,
    walkSeed: config.priceWalkSeed,
    priceFeedsFile: config.priceFeedsFile,
    rebalanceLotUsd: config.rebalanceLotUsd,
    rebalanceSlippageBps: config.rebalanceSlippageBps,
    priceOverridesFile: config.priceOverridesFile,
  };
}

export interface PriceDeps {
  /** Injected HTTP (tests pass recorded answers). Defaults to the global fetch. */
  fetch?: FetchLike;
  /** Where prices age, refreshes run and requests time out. */
  clock: Clock;
  /** The embedded walk's seed when HUSH_PRICE_WALK_SEED names none. */
  random: Random;
  onRefreshError?: (error: unknown) => void;
}

/** The asset ids prices are kept for: every swappable asset. */
export function swapAssetIds(config: HushConfig): string[] {
  return config.assets.list.filter((a) => a.swappable).map((a) => a.assetId);
}

/** `s`: the settings already resolved, when the caller has them (createFreshPrices), so they are resolved once. */
export function createPriceSource(config: HushConfig, deps: PriceDeps, s: ResolvedPriceSettings = resolvePriceSettings(config)): PriceSource {
  const assets = config.assets.list.filter((a) => a.swappable);
  switch (s.source) {
    case 'embedded':
      return new EmbeddedPriceSource({ assets, walkBpsPerMinute: s.walkBpsPerMinute, seed: s.walkSeed ?? deps.random.bytes(8).readBigUInt64BE(), clock: deps.clock, overridesFile: s.priceOverridesFile });
    case 'pyth': {
      const all = loadPythFeeds(s.priceFeedsFile);
      const feeds = new Map([...all].filter(([id]) => assets.some((a) => a.assetId === id)));
      return new PythHermesSource({ baseUrl: s.pythUrl, feeds, fetch: deps.fetch, apiKey: s.pythApiKey, clock: deps.clock });
    }
    case 'jupiter':
      return new JupiterPriceSource({
        baseUrl: s.jupiterUrl,
        assets: new Map(assets.map((a) => [a.assetId, { mint: a.mint, decimals: a.decimals }])),
        fetch: deps.fetch,
        apiKey: s.jupiterApiKey,
        clock: deps.clock,
      });
  }
}

/** The configured source behind FreshPrices. Call `start()` before serving quotes, `stop()` on shutdown. */
export function createFreshPrices(config: HushConfig, deps: PriceDeps): FreshPrices {
  const s = resolvePriceSettings(config);
  return new FreshPrices({
    source: createPriceSource(config, deps, s),
    assetIds: swapAssetIds(config),
    maxAgeMs: s.maxAgeMs,
    maxConfidenceBps: s.maxConfidenceBps,
    refreshIntervalMs: s.refreshIntervalMs,
    missingConfidence: 'accept',
    clock: deps.clock,
    onRefreshError: deps.onRefreshError,
  });
}
