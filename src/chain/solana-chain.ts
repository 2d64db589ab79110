import { createDefaultRpcTransport, createSolanaRpcFromTransport, isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type Address, type Rpc, type RpcTransport, type Signature, type SolanaRpcApi } from '@solana/kit';
import { ChainUnavailableError, postJsonRpc, resultOf, retryAfterMs } from './json-rpc.ts';
import { RpcBudget } from './rpc-budget.ts';
import { SETTLEMENT_LANE, type LaneContext } from './rpc-lane.ts';
import type { Clock, Timer } from '../support/clock.ts';
import type { FetchLike } from '../support/fetch-like.ts';
import { fetchTransport } from './fetch-transport.ts';

export { ChainUnavailableError, isChainUnavailable, JsonRpcError } from './json-rpc.ts';

export interface FreshBlockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
  /** Slot at which the blockhash stops being accepted, estimated from the block height gap. */
  expiresAtSlot: bigint;
  blocksLeftAtFetch: bigint;
  /** When it was asked for (clock ms): the chain answered no earlier, so its age is never underestimated. */
  fetchedAt: number;
  slotMs: number;
}

/** How far back an account's history is read for its first transaction (a deposit account has a few). */
export const FIRST_SIGNATURE_LOOKBACK = 20;

/**
 * The earliest successful transaction of a getSignaturesForAddress answer (newest first): for a deposit
 * account, the deposit that created it.
 */
export function earliestSuccessful(list: readonly { signature: string; err: unknown }[]): string | null {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.err === null) return list[i]!.signature;
  return null;
}

/** Nominal slot time used to turn block counts into seconds (mainnet ≈ 400 ms). */
const DEFAULT_SLOT_MS = 400;
const BLOCKHASH_MAX_AGE_MS = 15_000;
/** The background refresh period; /readyz judges the chain by the refresh (src/runtime/readiness.ts). */
export const BLOCKHASH_REFRESH_MS = 5_000;

/**
 * Never older than 15 s, nor than a quarter of its life (fast local slots): a transaction handed out
 * keeps ≥ 75 % of its blockhash life.
 */
function isFresh(b: FreshBlockhash, now: number): boolean {
  return now - b.fetchedAt <= Math.min(BLOCKHASH_MAX_AGE_MS, (Number(b.blocksLeftAtFetch) * b.slotMs) / 4);
}
const EXISTS_TTL_MS = 30_000;
/** Default bound on one RPC round trip; fetch's own (undici's 300 s header timeout) would hold a request that long. */
const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/** A transport failure of kit's client as a ChainUnavailableError (an HTTP error keeps its status and Retry-After). */
function asChainUnavailable(e: unknown, now: number): ChainUnavailableError {
  if (e instanceof ChainUnavailableError) return e;
  if (isSolanaError(e, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const { statusCode, headers } = e.context as { statusCode: number; headers?: Headers };
    return new ChainUnavailableError(`RPC answered HTTP ${statusCode}`, undefined, statusCode, retryAfterMs(headers?.get?.('retry-after'), now));
  }
  return new ChainUnavailableError(`RPC unavailable: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/**
 * kit's default transport with every request bounded in time (an RPC that accepts connections but never
 * answers would otherwise hang quotes, orders, /readyz and the worker's reads for minutes), every
 * transport failure a ChainUnavailableError, so callers and the API tell "chain away" from a real answer,
 * and every request within the process's request budget (429s waited out there).
 */
function timedTransport(inner: RpcTransport, timeoutMs: number, budget: RpcBudget, lane: LaneContext, clock: Clock): RpcTransport {
  return ((config: Parameters<RpcTransport>[0]) => {
    const payload = config.payload as { method?: string } | { method?: string }[];
    const methods = (Array.isArray(payload) ? payload : [payload]).map((p) => p?.method ?? 'unknown');
    return budget.run(methods, async () => {
      const timeout = clock.timeout(timeoutMs);
      try {
        return await inner({ ...config, signal: config.signal ? AbortSignal.any([config.signal, timeout]) : timeout });
      } catch (e) {
        if (config.signal?.aborted) throw e; // the caller gave up: not the chain's fault
        throw asChainUnavailable(e, clock.now());
      }
    }, config.signal, lane);
  }) as RpcTransport;
}

/** The two ways Hush calls the chain (kit's client, plain JSON), bound to one lane of the request budget. */
export interface ChainCalls {
  readonly rpc: Rpc<SolanaRpcApi>;
  post(body: string, methods: readonly string[]): Promise<unknown>;
}

/**
 * The chain as Hush's request path sees it: a standard Solana RPC plus caches that keep RPC calls off the
 * hot path (a blockhash refreshed in the background, token-account existence with a short TTL).
 */
export class SolanaChain {
  readonly rpc: Rpc<SolanaRpcApi>;
  private blockhash: FreshBlockhash | null = null;
  /** The last blockhash fetched by blockhashAvoiding: Hush's own transactions only. */
  private ownBlockhash: FreshBlockhash | null = null;
  private ownInflight: Promise<FreshBlockhash> | null = null;
  private inflight: Promise<FreshBlockhash> | null = null;
  private timer: Timer | null = null;
  /** Whether the last blockhash refresh failed (readiness reads it instead of asking the chain). */
  private refreshFailing = false;
  private readonly exists = new Map<string, { value: boolean; at: number }>();

  /** The request budget every RPC call of this client goes through (kit's and plain JSON alike). */
  readonly budget: RpcBudget;
  private readonly transport: RpcTransport;
  /** kit's client in the API lane, for calls no single request owns (a blockhash fetch shared by callers). */
  private readonly apiRpc: Rpc<SolanaRpcApi>;

  constructor(
    readonly url: string,
    /** Where the blockhash's age, the existence cache, the request budget and every RPC timeout are timed. */
    private readonly clock: Clock,
    private readonly slotMs = DEFAULT_SLOT_MS,
    readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    /** HUSH_RPC_MAX_RPS; 0 = no budget (429s are still honoured). */
    maxRps = 0,
    /** The network (src/support/fetch-like.ts): absent, the global fetch through kit's own transport. */
    private readonly fetchFn?: FetchLike,
  ) {
    this.budget = new RpcBudget(maxRps, timeoutMs, clock);
    this.transport = fetchFn ? fetchTransport(url, fetchFn, clock) : createDefaultRpcTransport({ url });
    this.rpc = createSolanaRpcFromTransport(timedTransport(this.transport, timeoutMs, this.budget, SETTLEMENT_LANE, clock));
    this.apiRpc = createSolanaRpcFromTransport(timedTransport(this.transport, timeoutMs, this.budget, { lane: 'api' }, clock));
  }

  /**
   * The chain's calls in `lane`: this client itself for the settlement lane; for a request, a client whose
   * every call waits in the API lane and leaves the queue when the request's client is gone.
   */
  inLane(lane: LaneContext): ChainCalls {
    if (lane === SETTLEMENT_LANE) return this;
    const rpc = createSolanaRpcFromTransport(timedTransport(this.transport, this.timeoutMs, this.budget, lane, this.clock));
    return { rpc, post: (body, methods) => this.post(body, methods, lane) };
  }

  /** The same bound for RPC calls made with plain fetch (JSON-RPC batches). */
  requestSignal(): AbortSignal {
    return this.clock.timeout(this.timeoutMs);
  }

  /**
   * One plain-JSON POST (a call or a batch; `methods` names each call in it) with the timeout bound.
   * Every plain-JSON RPC request of Hush goes through here, as kit's go through its transport.
   */
  post(body: string, methods: readonly string[], lane: LaneContext = SETTLEMENT_LANE): Promise<unknown> {
    return this.budget.run(methods, () => postJsonRpc(this.url, body, this.requestSignal(), methods.length === 1 ? methods[0]! : `RPC batch of ${methods.length}`, () => this.clock.now(), this.fetchFn), undefined, lane);
  }

  /** One plain-JSON call; its params are serialised as given (pass u64 amounts as strings or safe numbers). */
  async call<T>(method: string, params: unknown[]): Promise<T> {
    return resultOf<T>(method, await this.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), [method]));
  }

  /** Keeps the cached blockhash young so requests never wait on the RPC. */
  startBackgroundRefresh(): void {
    if (this.timer) return;
    this.timer = this.clock.every(BLOCKHASH_REFRESH_MS, () => void this.refreshBlockhash().catch(() => {}));
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /**
   * In the lane of the caller that found the cache stale (a request's order: the API lane); shared by the
   * callers meanwhile, so no one request's client leaving aborts it.
   */
  private async refreshBlockhash(lane: LaneContext = SETTLEMENT_LANE): Promise<FreshBlockhash> {
    this.inflight ??= (async () => {
      const rpc = lane.lane === 'api' ? this.apiRpc : this.rpc;
      try {
        // Its age counts from the asking, not the answer: the chain answered somewhere in between, and an answer
        // slow to arrive (a loaded machine: 600 ms at 50 ms slots) was already that much older. Counted from
        // its arrival, a deposit transaction was handed out with 67 % of its life, against the 75 % promised.
        const askedAt = this.clock.now();
        // Fetched at `confirmed`: one slot behind the tip, so the handed-out transaction keeps ~all its life.
        const [{ value, context }, height] = await Promise.all([
          rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
          rpc.getBlockHeight({ commitment: 'confirmed' }).send(),
        ]);
        const fresh: FreshBlockhash = {
          blockhash: value.blockhash,
          lastValidBlockHeight: value.lastValidBlockHeight,
          expiresAtSlot: context.slot + (value.lastValidBlockHeight - height),
          blocksLeftAtFetch: value.lastValidBlockHeight - height,
          fetchedAt: askedAt,
          slotMs: this.slotMs,
        };
        this.blockhash = fresh;
        this.refreshFailing = false;
        // The cache reached the very blockhash Hush's own transactions were fetched with (in the same slot):
        // deposits are handed it from now on, so Hush's own stop using it.
        if (this.ownBlockhash?.blockhash === fresh.blockhash) this.ownBlockhash = null;
        return fresh;
      } catch (e) {
        this.refreshFailing = true;
        throw new ChainUnavailableError(`RPC unavailable: ${(e as Error).message}`);
      } finally {
        this.inflight = null;
      }
    })();
    return this.inflight;
  }

  /** What the chain last answered the refresh, without asking it: when it last succeeded, and whether the last try failed. */
  refreshHealth(): { okAt: number | null; failing: boolean } {
    return { okAt: this.blockhash?.fetchedAt ?? null, failing: this.refreshFailing };
  }

  async latestBlockhash(lane: LaneContext = SETTLEMENT_LANE): Promise<FreshBlockhash> {
    const b = this.blockhash;
    return b && isFresh(b, this.clock.now()) ? b : this.refreshBlockhash(lane);
  }

  /**
   * A blockhash for Hush's own transactions that is none of `avoid` (the ones handed out in deposit
   * transactions): one kept for Hush's own transactions only while it is fresh, else the latest at
   * `confirmed`, fetched again a slot later while it is one of them or the deposits' cache. Never the
   * cached one deposits are handed: `avoid` is read before the call, and a deposit handed the cached one
   * after that read would share it with the payout (bench:privacy's A1 links, true and false).
   * Concurrent callers share one fetch: a burst of payouts costs one pair of calls, not a pair each, and
   * then none while it is fresh (15 s).
   */
  async blockhashAvoiding(avoid: { has(blockhash: string): boolean }): Promise<FreshBlockhash> {
    const own = this.ownBlockhash;
    if (own && isFresh(own, this.clock.now()) && !avoid.has(own.blockhash)) return own;
    this.ownInflight ??= this.fetchAvoiding(avoid).finally(() => (this.ownInflight = null));
    const shared = await this.ownInflight;
    // Fetched for another caller's set: this one's may name it.
    return avoid.has(shared.blockhash) ? this.fetchAvoiding(avoid) : shared;
  }

  private async fetchAvoiding(avoid: { has(blockhash: string): boolean }): Promise<FreshBlockhash> {
    for (let attempt = 0; attempt < 8; attempt++) {
      // At `confirmed`, as the deposits' cache: a `processed` block can still be dropped with its fork, and
      // every transaction signed with its blockhash in the next 15 s with it. Aged from the asking (above).
      const askedAt = this.clock.now();
      const [{ value, context }, height] = await Promise.all([
        this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(),
        this.rpc.getBlockHeight({ commitment: 'confirmed' }).send(),
      ]).catch((e: Error) => {
        throw new ChainUnavailableError(`RPC unavailable: ${e.message}`);
      });
      // Nor the one deposits are being handed now: a slot later it is another.
      if (!avoid.has(value.blockhash) && value.blockhash !== this.blockhash?.blockhash) {
        const left = value.lastValidBlockHeight - height;
        this.ownBlockhash = { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight, expiresAtSlot: context.slot + left, blocksLeftAtFetch: left, fetchedAt: askedAt, slotMs: this.slotMs };
        return this.ownBlockhash;
      }
      await this.clock.sleep(this.slotMs);
    }
    throw new ChainUnavailableError('no new blockhash for eight slots');
  }

  /** Milliseconds until a transaction with this blockhash can no longer land (nominal slot time). */
  static remainingMs(b: FreshBlockhash, now: number): number {
    return Math.max(0, b.fetchedAt + Number(b.blocksLeftAtFetch) * b.slotMs - now);
  }

  /** The cached answer of accountExistsCached while it is fresh, without a round trip (undefined otherwise). */
  accountExistsPeek(address: Address): boolean | undefined {
    const hit = this.exists.get(address);
    return hit && this.clock.now() - hit.at < EXISTS_TTL_MS ? hit.value : undefined;
  }

  /** Whether an account exists, cached briefly: good enough for fee estimates, never for money movement. */
  async accountExistsCached(address: Address): Promise<boolean> {
    const hit = this.exists.get(address);
    if (hit && this.clock.now() - hit.at < EXISTS_TTL_MS) return hit.value;
    let value: boolean;
    try {
      const { value: info } = await this.rpc.getAccountInfo(address, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } }).send();
      value = info !== null;
    } catch (e) {
      throw new ChainUnavailableError(`RPC unavailable: ${(e as Error).message}`);
    }
    if (this.exists.size > 50_000) this.exists.clear();
    this.exists.set(address, { value, at: this.clock.now() });
    return value;
  }

  async signatureStatus(signature: Signature) {
    const { value } = await this.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
    return value[0] ?? null;
  }
}
