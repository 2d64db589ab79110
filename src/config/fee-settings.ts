import { ConfigError } from './config-error.ts';
import type { FeePurpose } from '../domain/fee-estimate.ts';

/** How Hush prices its transactions' compute units (docs/spec.md §11; README "Running on mainnet"). */
export interface FeeSettings {
  /**
   * HUSH_FEE_PRICING: `market` (default) prices every transaction from the fee market (src/settlement/fee-prices.ts),
   * the quote's network fee on the grid (src/domain/fee-grid.ts); `static` pays HUSH_COMPUTE_UNIT_PRICE everywhere,
   * as before issue 73 (a private cluster, a test that wants one figure).
   */
  feePricing: 'market' | 'static';
  /** HUSH_FEE_CAP_LAMPORTS: the most one transaction of each purpose may cost, base fee included (lamports). */
  feeCapLamports: Readonly<Record<FeePurpose, bigint>>;
}

/**
 * The caps by default: a payout or refund someone waits for may pay up to 0.001 SOL in a spike; what nobody
 * waits for much less; a deposit, which the partner's user pays, least (the SDK refuses a deposit priced over
 * 1,000,000 micro-lamports per CU anyway).
 */
export const DEFAULT_FEE_CAPS: Readonly<Record<FeePurpose, bigint>> = {
  payout: 1_000_000n,
  refund: 1_000_000n,
  lateRefund: 500_000n,
  partnerPayout: 500_000n,
  sweep: 200_000n,
  lateSweep: 200_000n,
  deposit: 50_000n,
};

const PURPOSES = Object.keys(DEFAULT_FEE_CAPS) as FeePurpose[];
/** Below a transaction's base fee and a little priority nothing lands; above 1 SOL a cap caps nothing. */
const CAP_MIN = 10_000n;
const CAP_MAX = 1_000_000_000n;

function capOf(name: string, raw: string): bigint {
  if (!/^\d{1,10}$/.test(raw) || BigInt(raw) < CAP_MIN || BigInt(raw) > CAP_MAX) throw new ConfigError(`${name} caps must be integers in ${CAP_MIN}..${CAP_MAX} lamports, got "${raw}"`);
  return BigInt(raw);
}

/** One figure for every purpose, or `purpose=lamports,…` over the defaults. */
export function parseFeeCaps(raw: string | undefined): Record<FeePurpose, bigint> {
  const caps = { ...DEFAULT_FEE_CAPS };
  if (raw === undefined || raw.trim() === '') return caps;
  if (/^\d+$/.test(raw.trim())) {
    const all = capOf('HUSH_FEE_CAP_LAMPORTS', raw.trim());
    for (const p of PURPOSES) caps[p] = all;
    return caps;
  }
  for (const part of raw.split(',')) {
    const [name, value, extra] = part.split('=').map((s) => s.trim());
    if (!name || value === undefined || extra !== undefined || !PURPOSES.includes(name as FeePurpose)) {
      throw new ConfigError(`HUSH_FEE_CAP_LAMPORTS must be lamports, or purpose=lamports pairs of ${PURPOSES.join(', ')}; got "${part}"`);
    }
    caps[name as FeePurpose] = capOf('HUSH_FEE_CAP_LAMPORTS', value);
  }
  return caps;
}

export function feeSettings(env: NodeJS.ProcessEnv): FeeSettings {
  const pricing = env.HUSH_FEE_PRICING || 'market';
  if (pricing !== 'market' && pricing !== 'static') throw new ConfigError(`HUSH_FEE_PRICING must be market or static, got "${pricing}"`);
  return { feePricing: pricing, feeCapLamports: parseFeeCaps(env.HUSH_FEE_CAP_LAMPORTS) };
}
