import { loadAssets, type AssetRegistry } from './assets.ts';

export type Role = 'api' | 'worker' | 'all';

export interface RateLimits {
  quote: number;
  order: number;
  status: number;
  tokens: number;
}

/** Everything SPEC §11 lets an operator set, parsed once at start. */
export interface HushConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** Optional PostgreSQL schema (side-by-side deployments, tests, benchmarks). */
  databaseSchema?: string;
  redisUrl?: string;
  solanaRpcUrl?: string;
  localnetPort: number;
  localnetSlotMs: number;
  role: Role;
  adminToken?: string;
  quoteTtlS: number;
  orderTtlS: number;
  payoutDelayS: { min: number; max: number };
  /** How often accrued partner fees are paid out, aggregated per partner and asset. */
  partnerPayoutIntervalS: number;
  /** How often confirmed deposits are swept into the pools (several per transaction). */
  sweepIntervalS: number;
  treasurySeed?: string;
  rateLimits: RateLimits;
  /** Hush's own fee on every transfer, in basis points of amountIn. */
  serviceFeeBps: number;
  /** Compute budget every Hush-built transaction carries (deposit included). */
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  assets: AssetRegistry;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}

function delayWindow(raw: string | undefined): { min: number; max: number } {
  const m = /^(\d+)-(\d+)$/.exec(raw ?? '5-30');
  if (!m) throw new ConfigError(`HUSH_PAYOUT_DELAY_S must look like "min-max" in seconds, got "${raw}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (min > max) throw new ConfigError('HUSH_PAYOUT_DELAY_S: min must not exceed max');
  return { min, max };
}

function rateLimits(raw: string | undefined): RateLimits {
  const out: RateLimits = { quote: 20, order: 5, status: 50, tokens: 50 };
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!k || !(k in out) || !v || !/^\d+$/.test(v) || Number(v) < 1) throw new ConfigError(`HUSH_RATE_LIMITS: bad entry "${part}"`);
    out[k as keyof RateLimits] = Number(v);
  }
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): HushConfig {
  const role = env.HUSH_ROLE ?? 'all';
  if (role !== 'api' && role !== 'worker' && role !== 'all') throw new ConfigError(`HUSH_ROLE must be api, worker or all, got "${role}"`);
  return {
    port: int(env, 'PORT', 8787, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || './data',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || undefined,
    solanaRpcUrl: env.SOLANA_RPC_URL || undefined,
    localnetPort: int(env, 'LOCALNET_PORT', 8899, 0, 65535),
    localnetSlotMs: int(env, 'LOCALNET_SLOT_MS', 400, 10, 60_000),
    role,
    adminToken: env.HUSH_ADMIN_TOKEN || undefined,
    quoteTtlS: int(env, 'HUSH_QUOTE_TTL_S', 60, 1, 3600),
    orderTtlS: int(env, 'HUSH_ORDER_TTL_S', 1800, 1, 86_400),
    payoutDelayS: delayWindow(env.HUSH_PAYOUT_DELAY_S),
    partnerPayoutIntervalS: int(env, 'HUSH_PARTNER_PAYOUT_INTERVAL_S', 3600, 1, 30 * 86_400),
    sweepIntervalS: int(env, 'HUSH_SWEEP_INTERVAL_S', 5, 1, 86_400),
    treasurySeed: env.TREASURY_SEED || undefined,
    rateLimits: rateLimits(env.HUSH_RATE_LIMITS),
    serviceFeeBps: int(env, 'HUSH_SERVICE_FEE_BPS', 30, 0, 1000),
    computeUnitLimit: int(env, 'HUSH_COMPUTE_UNIT_LIMIT', 100_000, 1000, 1_400_000),
    computeUnitPriceMicroLamports: BigInt(int(env, 'HUSH_COMPUTE_UNIT_PRICE', 1000, 0, 1_000_000_000)),
    assets: loadAssets(env.HUSH_ASSETS_FILE || undefined),
  };
}
