/**
 * Which lane of the request budget (rpc-budget.ts) a chain call waits in: `settlement` (the worker's
 * payouts, refunds, sweeps, deposit detection and confirmation; the default) or `api` (whatever a
 * partner's request makes the chain do).
 */
export type RpcLane = 'settlement' | 'api';

/**
 * A chain call's lane, and for a request's calls the signal that fires when its client is gone (calls
 * still waiting for a turn are then dropped).
 *
 * Passed explicitly (SolanaChain.inLane), not carried in an AsyncLocalStorage: one AsyncLocalStorage
 * switches Node's promise hooks on for every promise of the process, ~7 % of a quote's CPU though a quote
 * makes no chain call (issue 56, docs/performance.md). The few request paths that reach the chain (an
 * order's blockhash, a deposit hint's reads) take the lane as a parameter; every other call is the
 * worker's and stays in the default lane.
 */
export interface LaneContext {
  readonly lane: RpcLane;
  readonly signal?: AbortSignal;
}

export const SETTLEMENT_LANE: LaneContext = { lane: 'settlement' };
