import { ConfigError } from './config-error.ts';
import { envInt } from './env-int.ts';
import { parsePositivePrice } from '../domain/exact-decimal.ts';
import type { Price } from '../domain/price.ts';

/** Swap pricing and rebalancing (docs/spec.md §4, §11): where prices come from, how fresh, what a swap takes. */
export interface PriceSettings {
  /** An operator's shorter order deadline for cross-asset orders (bounds Hush's price exposure); null: HUSH_ORDER_TTL_S. */
  swapOrderTtlS: number | null;
  /**
   * An operator's opt-in: the largest adverse price move between quote and deposit confirmation a swap
   * absorbs before its deposit is refunded (`price_moved`). null (the default): quotes are firm (docs/spec.md §4).
   */
  swapMaxDriftBps: number | null;
  /** Inventory rebalancing: `faucet` (local chain) or `off`; how often it runs. */
  rebalancer: 'faucet' | 'off';
  rebalanceIntervalS: number;
  /** HUSH_PRICE_SOURCE: where swap prices come from (default embedded reference prices). */
  priceSource: 'embedded' | 'pyth' | 'jupiter';
  /** HUSH_PRICE_MAX_AGE_S: a price older than this is no price (default 60). */
  priceMaxAgeS: number;
  /** HUSH_PRICE_MAX_CONFIDENCE_BPS: confidence half-width over price above which a price is refused (default 100). */
  priceMaxConfidenceBps: number;
  /** HUSH_SWAP_SPREAD_BPS: spread taken on every cross-asset conversion (default 50). */
  swapSpreadBps: number;
  /** HUSH_PYTH_URL: Pyth Hermes base URL (default https://hermes.pyth.network). */
  pythUrl: string;
  /** HUSH_JUPITER_URL: Jupiter API base URL for Price v3 (default https://lite-api.jup.ag). */
  jupiterUrl: string;
  /** HUSH_PYTH_API_KEY: bearer token for Hermes, when the endpoint requires one. Secret. */
  pythApiKey?: string;
  /** HUSH_JUPITER_API_KEY: x-api-key for api.jup.ag. Secret. */
  jupiterApiKey?: string;
  /** HUSH_PRICE_REFRESH_S: background price refresh period (default min(10, max(1, maxAge/3))); must be below the max age. */
  priceRefreshS: number;
  /** HUSH_PRICE_WALK_BPS: embedded prices' random walk, max bps per minute (default 0 = off). */
  priceWalkBpsPerMinute: number;
  /** HUSH_PRICE_WALK_SEED: makes the embedded walk reproducible. */
  priceWalkSeed?: string;
  /** HUSH_PRICE_FEEDS_FILE: Pyth feed ids per asset (default config/price-feeds.json). */
  priceFeedsFile?: string;
  /** HUSH_REBALANCE_LOT_USD: every rebalancing move is a whole number of lots of this USD size (default 1000), exact. */
  rebalanceLotUsd: Price;
  /** HUSH_REBALANCE_SLIPPAGE_BPS: worst accepted rebalancing price below fair value (default 100). */
  rebalanceSlippageBps: number;
  /** HUSH_PRICE_OVERRIDES_FILE: JSON `{ "<assetId>": "<usd decimal>" }` the embedded source applies over the reference prices, re-read when it changes. */
  priceOverridesFile?: string;
}

/** An integer setting with no default: null when unset. */
function optionalInt(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : envInt(env, name, 0, min, max);
}

function rebalancerKind(raw: string | undefined): PriceSettings['rebalancer'] {
  const v = raw || 'auto';
  if (v === 'auto') return 'faucet'; // start-up turns this off when the chain has no local faucet
  if (v !== 'faucet' && v !== 'off') throw new ConfigError(`HUSH_REBALANCER must be faucet or off, got "${raw}"`);
  return v;
}

function priceSourceKind(raw: string | undefined): PriceSettings['priceSource'] {
  const v = raw || 'embedded';
  if (v !== 'embedded' && v !== 'pyth' && v !== 'jupiter') throw new ConfigError(`HUSH_PRICE_SOURCE must be embedded, pyth or jupiter, got "${raw}"`);
  return v;
}

export function priceSettings(env: NodeJS.ProcessEnv): PriceSettings {
  // Both unset by default: docs/spec.md §4 fixes one order deadline and firm quotes; an operator may opt in.
  const swapOrderTtlS = optionalInt(env, 'HUSH_SWAP_ORDER_TTL_S', 1, 86_400);
  const swapMaxDriftBps = optionalInt(env, 'HUSH_SWAP_MAX_DRIFT_BPS', 0, 10_000);
  const rebalancer = rebalancerKind(env.HUSH_REBALANCER);
  const rebalanceIntervalS = envInt(env, 'HUSH_REBALANCE_INTERVAL_S', 300, 1, 86_400);
  const priceMaxAgeS = envInt(env, 'HUSH_PRICE_MAX_AGE_S', 60, 1, 3600);
  const priceRefreshS = envInt(env, 'HUSH_PRICE_REFRESH_S', Math.min(10, Math.max(1, Math.floor(priceMaxAgeS / 3))), 1, 3600);
  if (priceRefreshS >= priceMaxAgeS && priceMaxAgeS > 1) throw new ConfigError('HUSH_PRICE_REFRESH_S must be below HUSH_PRICE_MAX_AGE_S, or every price goes stale between refreshes');
  const lotUsd = env.HUSH_REBALANCE_LOT_USD || '1000';
  const rebalanceLotUsd = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(lotUsd) ? parsePositivePrice(lotUsd) : null;
  if (!rebalanceLotUsd) throw new ConfigError(`HUSH_REBALANCE_LOT_USD must be a positive decimal, got "${lotUsd}"`);
  return {
    swapOrderTtlS,
    swapMaxDriftBps,
    rebalancer,
    rebalanceIntervalS,
    priceSource: priceSourceKind(env.HUSH_PRICE_SOURCE),
    priceMaxAgeS,
    priceMaxConfidenceBps: envInt(env, 'HUSH_PRICE_MAX_CONFIDENCE_BPS', 100, 0, 10_000),
    swapSpreadBps: envInt(env, 'HUSH_SWAP_SPREAD_BPS', 50, 0, 5000),
    pythUrl: env.HUSH_PYTH_URL || 'https://hermes.pyth.network',
    jupiterUrl: env.HUSH_JUPITER_URL || 'https://lite-api.jup.ag',
    pythApiKey: env.HUSH_PYTH_API_KEY || undefined,
    jupiterApiKey: env.HUSH_JUPITER_API_KEY || undefined,
    priceRefreshS,
    priceWalkBpsPerMinute: envInt(env, 'HUSH_PRICE_WALK_BPS', 0, 0, 10_000),
    priceWalkSeed: env.HUSH_PRICE_WALK_SEED || undefined,
    priceFeedsFile: env.HUSH_PRICE_FEEDS_FILE || undefined,
    rebalanceLotUsd,
    rebalanceSlippageBps: envInt(env, 'HUSH_REBALANCE_SLIPPAGE_BPS', 100, 0, 5000),
    priceOverridesFile: env.HUSH_PRICE_OVERRIDES_FILE || undefined,
  };
}
