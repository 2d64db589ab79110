import { envInt } from './env-int.ts';
import { loadAssets, type AssetRegistry } from './assets.ts';
import { ConfigError } from './config-error.ts';
import { privacySettings, type PrivacySettings } from './privacy-settings.ts';
import { liquiditySettings, type LiquiditySettings } from './liquidity-settings.ts';
import { screeningSettings, type ScreeningSettings } from './screening-settings.ts';
import { keyCustodySettings } from './key-custody.ts';
import { connectionSettings, type ConnectionSettings } from './connection-settings.ts';
import { httpSettings, type HttpSettings } from './http-settings.ts';
import { operatorSettings, type OperatorSettings } from './operator-settings.ts';
import { storeSettings, type StoreSettings } from './store-settings.ts';
import { chainSettings, type ChainSettings } from './chain-settings.ts';
import { priceSettings, type PriceSettings } from './price-settings.ts';
import { feeSettings, type FeeSettings } from './fee-settings.ts';
import { logLevel, type LogLevel } from './log-level.ts';
import type { Role } from './role.ts';

export type { Role } from './role.ts';
export type { RateLimits } from './http-settings.ts';
export { DEFAULT_PORT, opsAddress } from './http-settings.ts';

/** The deposit identities kept ready per asset by default (why this many: src/treasury/deposit-identity-mint.ts). */
export const DEPOSIT_IDENTITY_TARGET = 4096;

/**
 * Everything docs/spec.md §11 lets an operator set, parsed once at start. Each concern's settings, with the
 * parser of its variables, live in a file of their own; what stays here belongs to no one concern.
 */
export interface HushConfig extends HttpSettings, OperatorSettings, ConnectionSettings, StoreSettings, ChainSettings, PrivacySettings, LiquiditySettings, ScreeningSettings, PriceSettings, FeeSettings {
  /**
   * HUSH_DEPOSIT_IDENTITY_TARGET (default 4096, 64–65536): deposit identities a worker keeps ready per asset
   * (src/treasury/deposit-identity-mint.ts). Covers two seconds of the API's peak order rate on one asset;
   * a small deployment (or a test) can keep fewer and start with less work.
   */
  depositIdentityTarget: number;
  role: Role;
  /** LOG_LEVEL: pino's level for the API's and the worker's records (default info). */
  logLevel: LogLevel;
  quoteTtlS: number;
  orderTtlS: number;
  /** How often accrued partner fees are paid out, aggregated per partner and asset. */
  partnerPayoutIntervalS: number;
  /** Expected share (bps) of token payouts that create the recipient's token account: the flat network fee charges that share of its rent. */
  newTokenAccountShareBps: number;
  /** How often confirmed deposits are swept into the pools (several per transaction). */
  sweepIntervalS: number;
  /** Roles worker and all only (an api process with it is refused). */
  treasurySeed?: string;
  /** TREASURY_RETIRED_SEEDS: seeds rotated away from, drained into TREASURY_SEED's wallets (roles worker and all). */
  retiredSeeds?: string[];
  /** HUSH_QUOTE_KEY: the quote MAC key; unset → DATA_DIR/quote-key (required for role api on PostgreSQL). */
  quoteKey?: string;
  /** HUSH_RECEIPT_KEY: the disclosure receipts' Ed25519 seed (roles worker and all; else DATA_DIR/receipt-key). */
  receiptKey?: string;
  /** Hush's own fee on every transfer, in basis points of amountIn. */
  serviceFeeBps: number;
  assets: AssetRegistry;
}

export { ConfigError };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): HushConfig {
  const role = env.HUSH_ROLE || 'all';
  const privacy = privacySettings(env);
  if (role !== 'api' && role !== 'worker' && role !== 'all') throw new ConfigError(`HUSH_ROLE must be api, worker or all, got "${role}"`);
  return {
    ...httpSettings(env),
    ...operatorSettings(env),
    ...storeSettings(env),
    ...chainSettings(env),
    depositIdentityTarget: envInt(env, 'HUSH_DEPOSIT_IDENTITY_TARGET', DEPOSIT_IDENTITY_TARGET, 64, 65_536),
    role,
    logLevel: logLevel(env.LOG_LEVEL),
    quoteTtlS: envInt(env, 'HUSH_QUOTE_TTL_S', 60, 1, 3600),
    orderTtlS: envInt(env, 'HUSH_ORDER_TTL_S', 1800, 1, 86_400),
    ...privacy,
    ...liquiditySettings(env),
    ...screeningSettings(env),
    partnerPayoutIntervalS: envInt(env, 'HUSH_PARTNER_PAYOUT_INTERVAL_S', 3600, 1, 30 * 86_400),
    sweepIntervalS: envInt(env, 'HUSH_SWEEP_INTERVAL_S', 5, 1, 86_400),
    ...keyCustodySettings(env, role),
    ...connectionSettings(env),
    serviceFeeBps: envInt(env, 'HUSH_SERVICE_FEE_BPS', 30, 0, 1000),
    newTokenAccountShareBps: envInt(env, 'HUSH_NEW_TOKEN_ACCOUNT_SHARE_BPS', 7000, 0, 10_000),
    assets: loadAssets(env.HUSH_ASSETS_FILE || undefined, privacy.denominationMenu),
    ...priceSettings(env),
    ...feeSettings(env),
  };
}
