import { envInt } from './env-int.ts';

/** How unfunded orders may reserve pool liquidity (docs/spec.md §4, §7; docs/decisions.md "Liquidity for deposits"). */
export interface LiquiditySettings {
  /** HUSH_MAX_OPEN_ORDERS: an account's orders awaiting a deposit at once; one more → 429 TOO_MANY_OPEN_ORDERS. */
  maxOpenOrders: number;
  /**
   * HUSH_UNFUNDED_HOLD_S: how long after its creation an unfunded order reserves its amountOut. The variable
   * keeps its published name (operators' configurations set it); inside, a reservation is never a "hold",
   * which means the compliance status (docs/decisions.md "Names that say one thing").
   */
  unfundedReserveS: number;
  /** HUSH_UNFUNDED_SHARE_BPS: the most of an asset's free inventory one account's unfunded orders reserve against others. */
  unfundedShareBps: number;
}

export function liquiditySettings(env: NodeJS.ProcessEnv): LiquiditySettings {
  return {
    maxOpenOrders: envInt(env, 'HUSH_MAX_OPEN_ORDERS', 50, 1, 10_000_000),
    // Two minutes: an honest sender signs within the first transaction's life (~60–90 s of blockhash).
    unfundedReserveS: envInt(env, 'HUSH_UNFUNDED_HOLD_S', 120, 0, 86_400),
    unfundedShareBps: envInt(env, 'HUSH_UNFUNDED_SHARE_BPS', 2000, 0, 10_000),
  };
}
