import { ConfigError } from './config-error.ts';

/** How unfunded orders may hold pool liquidity (docs/spec.md §4, §7; docs/decisions.md "Liquidity for deposits"). */
export interface LiquiditySettings {
  /** HUSH_MAX_OPEN_ORDERS: an account's orders awaiting a deposit at once; one more → 429 TOO_MANY_OPEN_ORDERS. */
  maxOpenOrders: number;
  /** HUSH_UNFUNDED_HOLD_S: how long after its creation an unfunded order holds its amountOut. */
  unfundedHoldS: number;
  /** HUSH_UNFUNDED_SHARE_BPS: the most of an asset's free inventory one account's unfunded orders hold against others. */
  unfundedShareBps: number;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}

export function liquiditySettings(env: NodeJS.ProcessEnv): LiquiditySettings {
  return {
    maxOpenOrders: integer(env, 'HUSH_MAX_OPEN_ORDERS', 50, 1, 10_000_000),
    // Two minutes: an honest sender signs within the first transaction's life (~60–90 s of blockhash).
    unfundedHoldS: integer(env, 'HUSH_UNFUNDED_HOLD_S', 120, 0, 86_400),
    unfundedShareBps: integer(env, 'HUSH_UNFUNDED_SHARE_BPS', 2000, 0, 10_000),
  };
}
