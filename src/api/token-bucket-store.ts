import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { Clock } from '../support/clock.ts';

/**
 * docs/spec.md §7's per-key token bucket as a store for @fastify/rate-limit, which ships only fixed windows (they
 * let up to twice the budget through across a window boundary, and starve a client for the rest of a
 * window). The plugin's store contract is kept: `max` is the bucket's capacity (the burst) and
 * `timeWindow` the time to refill it from empty, so the rate is max / timeWindow. The answer maps onto
 * the plugin's counter: `current` = capacity − whole tokens left (or capacity + 1 when refused), and `ttl`
 * = ms until the bucket is full, or, when refused, until the next token (Retry-After).
 */
export interface BucketAnswer {
  current: number;
  ttl: number;
}

/** Time for the bucket to refill `n` tokens. */
function msForTokens(n: number, capacity: number, refillMs: number): number {
  return Math.ceil((n * refillMs) / capacity);
}

/** One take from a bucket; pure, shared by the in-process store and mirrored by the Redis script. */
export function takeToken(
  state: { tokens: number; at: number } | undefined,
  now: number,
  capacity: number,
  refillMs: number,
): { state: { tokens: number; at: number }; answer: BucketAnswer } {
  // Multiplied before divided: a caller exactly at the rate gets exactly one token back.
  const tokens = state ? Math.min(capacity, state.tokens + (Math.max(0, now - state.at) * capacity) / refillMs) : capacity;
  if (tokens < 1) return { state: { tokens, at: now }, answer: { current: capacity + 1, ttl: Math.max(1, msForTokens(1 - tokens, capacity, refillMs)) } };
  const left = tokens - 1;
  return { state: { tokens: left, at: now }, answer: { current: capacity - Math.floor(left), ttl: msForTokens(capacity - left, capacity, refillMs) } };
}

/** Buckets the in-process store keeps; past it, see LocalBuckets.evict. */
export const LOCAL_MAX_KEYS = 50_000;

/** A bucket holds at least one whole token (a hand-edited accounts.rate_limits may say otherwise). */
function wholeCapacity(max: number): number {
  return Number.isFinite(max) && max >= 1 ? Math.floor(max) : 1;
}

/**
 * A route limited `perKey: true` (a field of its rateLimit options, handed to child() by the plugin) shares
 * one store with every other such route: its keyGenerator names the bucket (key and kind), not the route.
 */
function isPerKey(routeOptions: unknown): boolean {
  return (routeOptions as { perKey?: unknown } | undefined)?.perKey === true;
}

/**
 * The in-process buckets. The plugin builds its store from a class, with no say in the arguments: the clock is
 * the subclass's (localBucketsOn), so a child bucket, built from `this.constructor`, reads the same one.
 */
export abstract class LocalBuckets implements FastifyRateLimitStore {
  private readonly buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();

  protected abstract now(): number;

  incr(key: string, cb: (e: Error | null, r?: BucketAnswer) => void, timeWindow: number, max: number): void {
    const now = this.now();
    const capacity = wholeCapacity(max);
    const prev = this.buckets.get(key);
    const { state, answer } = takeToken(prev, now, capacity, timeWindow);
    const fullAt = now + msForTokens(capacity - state.tokens, capacity, timeWindow);
    if (prev) {
      // Updated in place: every keyed request passes here, and a new entry per request was garbage per request.
      prev.tokens = state.tokens;
      prev.at = state.at;
      prev.fullAt = fullAt;
    } else {
      if (this.buckets.size >= LOCAL_MAX_KEYS) this.evict(now);
      this.buckets.set(key, { ...state, fullAt });
    }
    cb(null, answer);
  }

  /**
   * Makes room. A bucket full again is what a forgotten one is, so those go first, handing no one anything.
   * Dropping every bucket instead (as before) let a client with enough addresses (an IPv6 /40 holds 65,536
   * /56s) refill its own empty bucket at will. Only if that many clients are active within one refill
   * (~25,000 new addresses a second) do buckets still refilling go, nearest to full first and a tenth of
   * the store at a time: an emptied bucket, the one a limit is holding back, is the last to be forgotten.
   */
  private evict(now: number): void {
    for (const [k, b] of this.buckets) if (b.fullAt <= now) this.buckets.delete(k);
    const excess = this.buckets.size - Math.floor(LOCAL_MAX_KEYS * 0.9);
    if (excess <= 0) return;
    const byFullAt = [...this.buckets].sort((a, b) => a[1].fullAt - b[1].fullAt);
    for (let i = 0; i < excess; i++) this.buckets.delete(byFullAt[i]![0]);
  }

  get size(): number {
    return this.buckets.size;
  }

  /** The buckets of every route limited `perKey` (keyed by key and kind, whichever route draws on them). */
  private perKey: LocalBuckets | undefined;

  child(routeOptions?: unknown): FastifyRateLimitStore {
    const Buckets = this.constructor as new () => LocalBuckets;
    if (isPerKey(routeOptions)) return (this.perKey ??= new Buckets());
    return new Buckets();
  }
}

// The Redis clock (TIME) for every process, one round trip, and the key expires once the bucket would be
// full again (a missing key is a full bucket).
const TAKE_LUA = `
local capacity = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local tokens = capacity
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at')
if s[1] then
  tokens = math.min(capacity, tonumber(s[1]) + math.max(0, now - tonumber(s[2])) * capacity / refill_ms)
end
local taken = tokens >= 1
if taken then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(refill_ms))
if taken then return {capacity - math.floor(tokens), math.ceil((capacity - tokens) * refill_ms / capacity)} end
return {capacity + 1, math.max(1, math.ceil((1 - tokens) * refill_ms / capacity))}
`;

type RedisWithTake = Redis & { hushTakeToken(key: string, capacity: number, refillMs: number, cb: (e: Error | null, r?: [number, number]) => void): void };

class RedisBuckets implements FastifyRateLimitStore {
  constructor(
    private readonly redis: RedisWithTake,
    private readonly prefix: string,
  ) {}

  incr(key: string, cb: (e: Error | null, r?: BucketAnswer) => void, timeWindow: number, max: number): void {
    this.redis.hushTakeToken(this.prefix + key, wholeCapacity(max), timeWindow, (e, r) => (e || !r ? cb(e ?? new Error('no answer from Redis')) : cb(null, { current: r[0], ttl: r[1] })));
  }

  child(routeOptions: unknown): FastifyRateLimitStore {
    // Per key (and kind, in the key) for the routes limited perKey; else per route, as the plugin's own stores keep them.
    if (isPerKey(routeOptions)) return new RedisBuckets(this.redis, `${this.prefix}key-`);
    const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
    return new RedisBuckets(this.redis, `${this.prefix}${String(route?.method ?? '')}${String(route?.url ?? '')}-`);
  }
}

/** LocalBuckets on `clock`. */
export function localBucketsOn(clock: Pick<Clock, 'now'>): new () => LocalBuckets {
  return class extends LocalBuckets {
    protected override now(): number {
      return clock.now();
    }
  };
}

/**
 * The store class to hand to @fastify/rate-limit: in Redis when given one (shared by every process, on
 * Redis's clock), else in process on `clock`.
 */
export function tokenBucketStore(clock: Pick<Clock, 'now'>, redis?: Redis, nameSpace = 'hush-tb:'): FastifyRateLimitStoreCtor {
  if (!redis) return localBucketsOn(clock) as unknown as FastifyRateLimitStoreCtor;
  const r = redis as RedisWithTake;
  if (!r.hushTakeToken) r.defineCommand('hushTakeToken', { numberOfKeys: 1, lua: TAKE_LUA });
  return class extends RedisBuckets {
    constructor() {
      super(r, nameSpace);
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
