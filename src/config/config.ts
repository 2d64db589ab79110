import { envInt } from './env-int.ts';
import { isIP } from 'node:net';
import { loadAssets, type AssetRegistry } from './assets.ts';
import { ConfigError } from './config-error.ts';
import { adminToken } from './admin-token.ts';
import { privacySettings, type PrivacySettings } from './privacy-settings.ts';
import { liquiditySettings, type LiquiditySettings } from './liquidity-settings.ts';
import { screeningSettings, type ScreeningSettings } from './screening-settings.ts';
import { wsUrlFromRpcUrl } from './ws-url.ts';
import { keyCustodySettings } from './key-custody.ts';
import { connectionSettings, type ConnectionSettings } from './connection-settings.ts';

/** The deposit identities kept ready per asset by default (why this many: src/treasury/deposit-identity-mint.ts). */
export const DEPOSIT_IDENTITY_TARGET = 4096;
import { logLevel, type LogLevel } from './log-level.ts';
import { parsePositivePrice } from '../domain/exact-decimal.ts';
import type { Price } from '../domain/price.ts';
import type { Role } from './role.ts';

export type { Role } from './role.ts';

export interface RateLimits {
  quote: number;
  order: number;
  status: number;
  tokens: number;
  /** The partner's own account (docs/spec.md §4 self-service): rare operations, a tight bucket. */
  account: number;
}

/** Everything docs/spec.md §11 lets an operator set, parsed once at start. */
export interface HushConfig extends PrivacySettings, LiquiditySettings, ScreeningSettings, ConnectionSettings {
  port: number;
  /** The ops listener of every role: /healthz, /readyz, /metrics and /admin/v1 (HUSH_OPS_PORT; default PORT + 1, 0 when PORT is 0). */
  opsPort: number;
  /** Its address (HUSH_OPS_HOST, default loopback): nothing on it is meant for partners. */
  opsHost: string;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** Optional PostgreSQL schema (side-by-side deployments, tests, benchmarks). */
  databaseSchema?: string;
  redisUrl?: string;
  solanaRpcUrl?: string;
  /** PubSub endpoint (SOLANA_WS_URL); unset → derived from SOLANA_RPC_URL, or the embedded chain's. */
  solanaWsUrl?: string;
  localnetPort: number;
  /** Embedded chain's PubSub port (LOCALNET_WS_PORT); unset → LOCALNET_PORT + 1. */
  localnetWsPort?: number;
  /** The embedded chain's slot time (LOCALNET_SLOT_MS): drives that chain only. */
  localnetSlotMs: number;
  /**
   * Hush's assumption of the cluster's slot time (HUSH_SLOT_MS): polls, blockhash life, payout delays and the
   * two-slot gap of class release. Default 400 (a real cluster's target); beside the embedded chain, its LOCALNET_SLOT_MS.
   */
  slotMs: number;
  /** Bound on one Solana RPC round trip (HUSH_RPC_TIMEOUT_MS). */
  rpcTimeoutMs: number;
  /** Request budget of all Solana RPC calls, calls per second (HUSH_RPC_MAX_RPS; 0 = none). */
  rpcMaxRps: number;
  /**
   * HUSH_DEPOSIT_IDENTITY_TARGET (default 4096, 64–65536): deposit identities a worker keeps ready per asset
   * (src/treasury/deposit-identity-mint.ts). Covers two seconds of the API's peak order rate on one asset;
   * a small deployment (or a test) can keep fewer and start with less work.
   */
  depositIdentityTarget: number;
  /** On SIGTERM, how long the API keeps serving (every answer `Connection: close`, /readyz 503) before it closes (HUSH_DRAIN_GRACE_MS). */
  drainGraceMs: number;
  /** How long a request may take to arrive, headers and body, before it is refused (HUSH_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  role: Role;
  /** LOG_LEVEL: pino's level for the API's and the worker's records (default info). */
  logLevel: LogLevel;
  adminToken?: string;
  quoteTtlS: number;
  orderTtlS: number;
  /** 'off' only in tests and benchmarks (docs/spec.md §9): allows a zero payout delay. */
  privacy: 'on' | 'off';
  payoutDelayS: { min: number; max: number };
  /** A class's traffic rate, for the quote's privacy estimate, is its deposits over this window. */
  privacyTrafficWindowS: number;
  /** How often accrued partner fees are paid out, aggregated per partner and asset. */
  partnerPayoutIntervalS: number;
  /** Expected share (bps) of token payouts that create the recipient's token account: the flat network fee charges that share of its rent. */
  newTokenAccountShareBps: number;
  /** How often confirmed deposits are swept into the pools (several per transaction). */
  sweepIntervalS: number;
  /** Roles worker and all only (an api process with it is refused). */
  treasurySeed?: string;
  /** HUSH_QUOTE_KEY: the quote MAC key; unset → DATA_DIR/quote-key (required for role api on PostgreSQL). */
  quoteKey?: string;
  /** HUSH_RECEIPT_KEY: the disclosure receipts' Ed25519 seed (roles worker and all; else DATA_DIR/receipt-key). */
  receiptKey?: string;
  rateLimits: RateLimits;
  /** Per client address per second (burst ×2) for partner-API requests no key's bucket covers: failed authentication, no such route. */
  anonymousRateLimit: number;
  /** Which proxies' X-Forwarded-For names the client (HUSH_TRUST_PROXY): none, or addresses / CIDR ranges. */
  trustProxy: false | string;
  /** Hush's own fee on every transfer, in basis points of amountIn. */
  serviceFeeBps: number;
  /** Compute budget every Hush-built transaction carries (deposit included). */
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  assets: AssetRegistry;
  // ---- Swap pricing and rebalancing ----
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

export { ConfigError };

/** An integer setting with no default: null when unset. */
function optionalInt(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : envInt(env, name, 0, min, max);
}

/** The partner port when PORT is unset. */
export const DEFAULT_PORT = 8787;

/**
 * Where the ops listener is, from the variables the server reads (HUSH_OPS_HOST, HUSH_OPS_PORT, PORT): the
 * admin CLI finds a running server with the same function.
 */
export function opsAddress(env: NodeJS.ProcessEnv): { host: string; port: number } {
  return { host: env.HUSH_OPS_HOST || '127.0.0.1', port: opsPort(env, envInt(env, 'PORT', DEFAULT_PORT, 0, 65535)) };
}

/** HUSH_OPS_PORT, else the partner port + 1 (0 stays 0: an ephemeral port for each); never the partner port itself. */
function opsPort(env: NodeJS.ProcessEnv, port: number): number {
  if (!env.HUSH_OPS_PORT && port === 65535) throw new ConfigError('PORT is 65535, so the ops port (PORT + 1) does not exist: set HUSH_OPS_PORT');
  const ops = envInt(env, 'HUSH_OPS_PORT', port === 0 ? 0 : port + 1, 0, 65535);
  if (ops !== 0 && ops === port) throw new ConfigError(`HUSH_OPS_PORT must differ from PORT (${port}): the ops listener is not the partner port`);
  return ops;
}

/** An optional URL variable: unset or empty → undefined; else it must parse with one of the schemes (or be a socket path). */
function url(env: NodeJS.ProcessEnv, name: string, protocols: string[], socketPath = false): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (socketPath && raw.startsWith('/')) return raw;
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    // reported below
  }
  // The value itself is not echoed: a connection string can carry a password.
  if (!parsed || !protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
  return raw;
}

const MAX_PAYOUT_DELAY_S = 86_400;
/**
 * HUSH_RPC_MAX_RPS default: 10, a common paid tier. The worker follows slots, deposit accounts and its
 * signatures over PubSub, so an idle Hush makes under 1 call/s; its polls stretch to stay within a share
 * of the budget. A chain without limits (the local one, a private node) can set 0.
 */
export const DEFAULT_RPC_MAX_RPS = 10;

/** Whole or decimal seconds (decimals let a time-compressed bench run scale them with its slots). */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = /^\d+(?:\.\d{1,3})?$/.test(raw) ? Number(raw) : NaN;
  if (!(v >= min && v <= max)) throw new ConfigError(`${name} must be seconds between ${min} and ${max}, got "${raw}"`);
  return v;
}

function delayWindow(raw: string | undefined): { min: number; max: number } {
  // Decimals (to the millisecond) let a time-compressed run (bench:privacy) scale the window with its slots.
  const m = /^(\d+(?:\.\d{1,3})?)-(\d+(?:\.\d{1,3})?)$/.exec(raw || '5-30');
  if (!m) throw new ConfigError(`HUSH_PAYOUT_DELAY_S must look like "min-max" in seconds (e.g. 5-30 or 0.5-4), got "${raw}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (min > max) throw new ConfigError('HUSH_PAYOUT_DELAY_S: min must not exceed max');
  // A privacy delay is minutes; a day or more is a typo, and it would hold funds past any order deadline.
  if (max > MAX_PAYOUT_DELAY_S) throw new ConfigError(`HUSH_PAYOUT_DELAY_S: max must be at most ${MAX_PAYOUT_DELAY_S} s, got ${max}`);
  return { min, max };
}

/** docs/spec.md §9: privacy is on unless explicitly switched off, for tests and benchmarks only. */
function privacyMode(raw: string | undefined): 'on' | 'off' {
  const v = raw || 'on';
  if (v !== 'on' && v !== 'off') throw new ConfigError(`HUSH_PRIVACY must be on or off, got "${raw}"`);
  return v;
}

/** A payout with no wait is linked by its timing alone (bench:privacy's self-check): refused unless privacy is off. */
function checkDelayAllowed(delay: { min: number; max: number }, privacy: 'on' | 'off'): void {
  if (privacy === 'on' && delay.min === 0) {
    throw new ConfigError('HUSH_PAYOUT_DELAY_S with a minimum of 0 lets a payout follow its deposit at once; it is allowed only with HUSH_PRIVACY=off (tests and benchmarks)');
  }
}

function rateLimits(raw: string | undefined): RateLimits {
  const out: RateLimits = { quote: 20, order: 5, status: 50, tokens: 50, account: 1 };
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!k || !(k in out) || !v || !/^\d+$/.test(v) || Number(v) < 1) throw new ConfigError(`HUSH_RATE_LIMITS: bad entry "${part}"`);
    out[k as keyof RateLimits] = Number(v);
  }
  return out;
}

/**
 * "false"/unset, or comma-separated proxy addresses / CIDR ranges. No hop count: it would trust whoever
 * connects (Fastify 5 refuses it for that reason). Nor "true" (every hop): the client's address would be
 * the leftmost X-Forwarded-For entry, which the client writes itself behind a proxy that appends (most do),
 * so a new made-up address per request would escape the per-address limit on key guessing.
 */
function trustProxy(raw: string | undefined): HushConfig['trustProxy'] {
  const v = raw?.trim();
  if (!v || v === 'false') return false;
  if (v === 'true') {
    throw new ConfigError('HUSH_TRUST_PROXY=true would trust any X-Forwarded-For a client writes; name the proxies instead (addresses or CIDR ranges)');
  }
  for (const part of v.split(',')) {
    const [ip, bits, ...rest] = part.trim().split('/');
    const family = isIP(ip ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`HUSH_TRUST_PROXY must be false or proxy addresses (CIDR allowed), got "${raw}"`);
    }
    // A /0 range is every address: `true` by another name.
    if (bits !== undefined && Number(bits) === 0) {
      throw new ConfigError(`HUSH_TRUST_PROXY=${part.trim()} would trust every address, so any X-Forwarded-For a client writes; name the proxies instead`);
    }
  }
  return v;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): HushConfig {
  const role = env.HUSH_ROLE || 'all';
  const privacy = privacyMode(env.HUSH_PRIVACY);
  const payoutDelayS = delayWindow(env.HUSH_PAYOUT_DELAY_S);
  checkDelayAllowed(payoutDelayS, privacy);
  const privacyFields = privacySettings(env, payoutDelayS, (name, fallback) => seconds(env, name, fallback, 1, MAX_PAYOUT_DELAY_S));
  if (role !== 'api' && role !== 'worker' && role !== 'all') throw new ConfigError(`HUSH_ROLE must be api, worker or all, got "${role}"`);
  const localnetSlotMs = envInt(env, 'LOCALNET_SLOT_MS', 400, 10, 60_000);
  const ops = opsAddress(env);
  return {
    port: envInt(env, 'PORT', DEFAULT_PORT, 0, 65535),
    opsPort: ops.port,
    opsHost: ops.host,
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || './data',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:', 'socket:']),
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'], true),
    solanaRpcUrl: url(env, 'SOLANA_RPC_URL', ['http:', 'https:']),
    solanaWsUrl: url(env, 'SOLANA_WS_URL', ['ws:', 'wss:']) ?? (env.SOLANA_RPC_URL ? wsUrlFromRpcUrl(env.SOLANA_RPC_URL) : undefined),
    localnetPort: envInt(env, 'LOCALNET_PORT', 8899, 0, 65535),
    ...(env.LOCALNET_WS_PORT ? { localnetWsPort: envInt(env, 'LOCALNET_WS_PORT', 0, 0, 65535) } : {}),
    localnetSlotMs,
    slotMs: envInt(env, 'HUSH_SLOT_MS', env.SOLANA_RPC_URL ? 400 : localnetSlotMs, 10, 60_000),
    rpcTimeoutMs: envInt(env, 'HUSH_RPC_TIMEOUT_MS', 10_000, 100, 120_000),
    rpcMaxRps: envInt(env, 'HUSH_RPC_MAX_RPS', DEFAULT_RPC_MAX_RPS, 0, 100_000),
    depositIdentityTarget: envInt(env, 'HUSH_DEPOSIT_IDENTITY_TARGET', DEPOSIT_IDENTITY_TARGET, 64, 65_536),
    drainGraceMs: envInt(env, 'HUSH_DRAIN_GRACE_MS', 1000, 0, 60_000),
    requestTimeoutMs: envInt(env, 'HUSH_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    role,
    logLevel: logLevel(env.LOG_LEVEL),
    adminToken: adminToken(env.HUSH_ADMIN_TOKEN),
    quoteTtlS: envInt(env, 'HUSH_QUOTE_TTL_S', 60, 1, 3600),
    orderTtlS: envInt(env, 'HUSH_ORDER_TTL_S', 1800, 1, 86_400),
    privacy,
    payoutDelayS,
    ...privacyFields,
    privacyTrafficWindowS: seconds(env, 'HUSH_PRIVACY_TRAFFIC_WINDOW_S', 3600, 1, MAX_PAYOUT_DELAY_S),
    ...liquiditySettings(env),
    ...screeningSettings(env),
    partnerPayoutIntervalS: envInt(env, 'HUSH_PARTNER_PAYOUT_INTERVAL_S', 3600, 1, 30 * 86_400),
    sweepIntervalS: envInt(env, 'HUSH_SWEEP_INTERVAL_S', 5, 1, 86_400),
    // Both unset by default: docs/spec.md §4 fixes one order deadline and firm quotes; an operator may opt in.
    swapOrderTtlS: optionalInt(env, 'HUSH_SWAP_ORDER_TTL_S', 1, 86_400),
    swapMaxDriftBps: optionalInt(env, 'HUSH_SWAP_MAX_DRIFT_BPS', 0, 10_000),
    rebalancer: rebalancerKind(env.HUSH_REBALANCER),
    rebalanceIntervalS: envInt(env, 'HUSH_REBALANCE_INTERVAL_S', 300, 1, 86_400),
    ...keyCustodySettings(env, role),
    rateLimits: rateLimits(env.HUSH_RATE_LIMITS),
    anonymousRateLimit: envInt(env, 'HUSH_ANONYMOUS_RATE_LIMIT', 10, 1, 1_000_000),
    trustProxy: trustProxy(env.HUSH_TRUST_PROXY),
    ...connectionSettings(env),
    serviceFeeBps: envInt(env, 'HUSH_SERVICE_FEE_BPS', 30, 0, 1000),
    newTokenAccountShareBps: envInt(env, 'HUSH_NEW_TOKEN_ACCOUNT_SHARE_BPS', 7000, 0, 10_000),
    computeUnitLimit: envInt(env, 'HUSH_COMPUTE_UNIT_LIMIT', 100_000, 1000, 1_400_000),
    computeUnitPriceMicroLamports: BigInt(envInt(env, 'HUSH_COMPUTE_UNIT_PRICE', 1000, 0, 1_000_000_000)),
    assets: loadAssets(env.HUSH_ASSETS_FILE || undefined, privacyFields.denominationMenu),
    ...priceSettings(env),
    priceOverridesFile: env.HUSH_PRICE_OVERRIDES_FILE || undefined,
  };
}

function rebalancerKind(raw: string | undefined): HushConfig['rebalancer'] {
  const v = raw || 'auto';
  if (v === 'auto') return 'faucet'; // start-up turns this off when the chain has no local faucet
  if (v !== 'faucet' && v !== 'off') throw new ConfigError(`HUSH_REBALANCER must be faucet or off, got "${raw}"`);
  return v;
}

function priceSourceKind(raw: string | undefined): HushConfig['priceSource'] {
  const v = raw || 'embedded';
  if (v !== 'embedded' && v !== 'pyth' && v !== 'jupiter') throw new ConfigError(`HUSH_PRICE_SOURCE must be embedded, pyth or jupiter, got "${raw}"`);
  return v;
}

function priceSettings(env: NodeJS.ProcessEnv) {
  const priceMaxAgeS = envInt(env, 'HUSH_PRICE_MAX_AGE_S', 60, 1, 3600);
  const priceRefreshS = envInt(env, 'HUSH_PRICE_REFRESH_S', Math.min(10, Math.max(1, Math.floor(priceMaxAgeS / 3))), 1, 3600);
  if (priceRefreshS >= priceMaxAgeS && priceMaxAgeS > 1) throw new ConfigError('HUSH_PRICE_REFRESH_S must be below HUSH_PRICE_MAX_AGE_S, or every price goes stale between refreshes');
  const lotUsd = env.HUSH_REBALANCE_LOT_USD || '1000';
  const rebalanceLotUsd = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(lotUsd) ? parsePositivePrice(lotUsd) : null;
  if (!rebalanceLotUsd) throw new ConfigError(`HUSH_REBALANCE_LOT_USD must be a positive decimal, got "${lotUsd}"`);
  return {
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
  };
}
