import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which lane of the request budget (rpc-budget.ts) a chain call waits in: `settlement` (the worker's
 * payouts, refunds, sweeps, deposit detection and confirmation; the default) or `api` (whatever a
 * partner's request makes the chain do).
 */
export type RpcLane = 'settlement' | 'api';

export interface LaneContext {
  lane: RpcLane;
  /** Fires when the caller is gone (its HTTP request closed): its calls still waiting for a turn are dropped. */
  signal?: AbortSignal;
}

const SETTLEMENT: LaneContext = { lane: 'settlement' };

/**
 * Async context rather than a parameter: every chain call a request causes, however deep in the services
 * and through kit's transport, is tagged without threading an option through each of them, and the
 * worker's loops, never started from a request, stay in the default lane.
 */
const lanes = new AsyncLocalStorage<LaneContext>();

/** Runs `fn` with every chain call it (and all it starts) makes in `lane`. */
export function runInLane<T>(lane: RpcLane, fn: () => T, signal?: AbortSignal): T {
  return lanes.run(signal ? { lane, signal } : { lane }, fn);
}

/** Runs `fn` in a context made by the caller (e.g. with a signal made on first use: src/api/rpc-lane-hook.ts). */
export function runInLaneContext<T>(context: LaneContext, fn: () => T): T {
  return lanes.run(context, fn);
}

/** The lane of the code running now (settlement outside any runInLane). */
export function currentLane(): LaneContext {
  return lanes.getStore() ?? SETTLEMENT;
}
