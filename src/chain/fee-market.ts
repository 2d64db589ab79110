import type { MarketFees, SlotFee } from '../domain/fee-estimate.ts';
import { MARKET_PERCENTILE_BPS } from '../domain/fee-estimate.ts';
import type { Clock } from '../support/clock.ts';
import type { FetchLike } from '../support/fetch-like.ts';
import { isChainUnavailable, postJsonRpc, resultOf } from './json-rpc.ts';
import type { ChainCalls } from './solana-chain.ts';

/** One JSON-RPC call: its result, a thrown ChainUnavailableError when the chain could not be asked, another error when it answered with one. */
export type RpcCall = (method: string, params: unknown[]) => Promise<unknown>;

/** Calls through a SolanaChain's budgeted plain-JSON path (its request budget and lane). */
export function callThrough(calls: Pick<ChainCalls, 'post'>): RpcCall {
  let id = 0;
  return async (method, params) => resultOf(method, await calls.post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), [method]));
}

/** Calls straight to an RPC URL (benches, tools): each bounded by `timeoutMs` on `clock`. */
export function callUrl(url: string, clock: Clock, timeoutMs = 10_000, fetchFn?: FetchLike): RpcCall {
  let id = 0;
  return async (method, params) => resultOf(method, await postJsonRpc(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), clock.timeout(timeoutMs), method, () => clock.now(), fetchFn));
}

export interface FeeMarketOptions {
  /** The cluster's slot time: an answer is kept this long, so the market costs one call per account set and slot. */
  slotMs: number;
  /** The percentile to ask for where the endpoint takes one (Triton's, basis points); null: the agave form only. */
  percentileBps?: number | null;
  /** After an endpoint refused the percentile, ask it again this much later (a provider may add it; default an hour). */
  recheckPercentileMs?: number;
}

const MAX_ACCOUNTS = 128;
const CACHE_SWEEP_SIZE = 256;

/**
 * The fee market as the chain reports it: getRecentPrioritizationFees over the accounts a transaction
 * writes, in Triton's percentile form where the endpoint has it and the agave form where it refuses it, for
 * `estimateComputeUnitPrice` (src/domain/fee-estimate.ts). One call per account set per slot, however many
 * transactions ask: concurrent askers share the call, later ones its answer until the slot is over.
 *
 * Pass the accounts a transaction write-locks that others write too (the fee payer, the pool's wallet and
 * token account). A recipient's fresh account has no fee history, and naming it would make every payout's
 * set a new one, and so a call per payout.
 */
export class FeeMarket {
  private readonly cache = new Map<string, { at: number; answer: Promise<MarketFees> }>();
  private percentileRefusedAt: number | null = null;
  private readonly percentileBps: number | null;
  private readonly recheckMs: number;

  constructor(
    private readonly call: RpcCall,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly opts: FeeMarketOptions,
  ) {
    this.percentileBps = opts.percentileBps === undefined ? MARKET_PERCENTILE_BPS : opts.percentileBps;
    this.recheckMs = opts.recheckPercentileMs ?? 3_600_000;
  }

  /** Whether the percentile form is asked for now: configured, and not refused by the endpoint within the recheck period. */
  get percentileServed(): boolean {
    return this.percentileBps !== null && this.percentileRefusedAt === null;
  }

  /**
   * Recent per-slot fees for a transaction writing `writable` (up to 128 accounts). Rejects when the chain
   * cannot be asked: the caller then prices from Hush's own landings (`market: null`).
   */
  recentFees(writable: readonly string[]): Promise<MarketFees> {
    const accounts = [...new Set(writable)].sort();
    if (accounts.length > MAX_ACCOUNTS) return Promise.reject(new RangeError(`getRecentPrioritizationFees takes at most ${MAX_ACCOUNTS} accounts, not ${accounts.length}`));
    const key = accounts.join(',');
    const now = this.clock.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.opts.slotMs) return hit.answer;
    const answer = this.ask(accounts);
    this.cache.set(key, { at: now, answer });
    // A failed call is not kept: the next asker tries again.
    answer.catch(() => {
      if (this.cache.get(key)?.answer === answer) this.cache.delete(key);
    });
    if (this.cache.size > CACHE_SWEEP_SIZE) for (const [k, v] of this.cache) if (now - v.at >= this.opts.slotMs) this.cache.delete(k);
    return answer;
  }

  private async ask(accounts: string[]): Promise<MarketFees> {
    const bps = this.percentileWanted();
    if (bps !== null) {
      try {
        return { slots: slotFees(await this.call('getRecentPrioritizationFees', [accounts, { percentile: bps }])), percentileBps: bps };
      } catch (e) {
        if (isChainUnavailable(e)) throw e;
        // The endpoint answered, with an error: stock agave refuses a second parameter.
        this.percentileRefusedAt = this.clock.now();
      }
    }
    return { slots: slotFees(await this.call('getRecentPrioritizationFees', [accounts])), percentileBps: null };
  }

  private percentileWanted(): number | null {
    if (this.percentileBps === null) return null;
    if (this.percentileRefusedAt !== null && this.clock.now() - this.percentileRefusedAt < this.recheckMs) return null;
    this.percentileRefusedAt = null;
    return this.percentileBps;
  }
}

function slotFees(result: unknown): SlotFee[] {
  if (!Array.isArray(result)) throw new TypeError('getRecentPrioritizationFees: expected an array');
  return result.map((r: { slot?: unknown; prioritizationFee?: unknown }) => ({ slot: toBigInt(r.slot), fee: toBigInt(r.prioritizationFee) }));
}

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.floor(v));
  throw new TypeError(`getRecentPrioritizationFees: not a u64: ${String(v)}`);
}
