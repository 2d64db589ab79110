/**
 * The price port, and `FreshPrices`: the only way the quote path reads prices.
 *
 * A `PriceSource` answers "USD per whole token" for asset ids, as exact fractions (never floats). Real
 * sources are remote (Pyth Hermes, Jupiter), so `FreshPrices` keeps a snapshot in memory refreshed in
 * the background; `pairRate` reads memory only and validates on every call:
 *
 * | situation                                                      | answer                          |
 * |----------------------------------------------------------------|---------------------------------|
 * | asset not tracked, or the source cannot price it (no feed)     | 400 PAIR_NOT_SUPPORTED           |
 * | the last successful answer of the source did not include it    | 400 PAIR_NOT_SUPPORTED           |
 * | no successful answer yet (source down since start)             | 503 SERVICE_UNAVAILABLE + Retry-After |
 * | price older than maxAge (e.g. refreshes failing, or stale feed)| 503 SERVICE_UNAVAILABLE + Retry-After |
 * | published too far in the future (clock skew > maxAge)          | 503 SERVICE_UNAVAILABLE + Retry-After |
 * | confidence / price > maxConfidenceBps                          | 503 SERVICE_UNAVAILABLE + Retry-After |
 * | no confidence published (Jupiter)                              | per `missingConfidence`: 'accept' (default) prices it on price and age alone — the spread is the margin; 'reject' answers 503 |
 *
 * A failed refresh (network error, HTTP error, malformed answer) keeps the previous snapshot, which
 * then ages out: never a quote on a stale price, and never a 400 for a passing outage.
 */
import { HushError } from '../domain/errors.ts';
import type { Price } from '../domain/price.ts';
import type { Clock, Timer } from '../support/clock.ts';

export interface PriceQuote {
  readonly assetId: string;
  /** USD per whole token, exact, > 0. */
  readonly price: Price;
  /** Half-width of the source's confidence interval in USD per whole token (num ≥ 0); null when the source publishes none. */
  readonly confidence: Price | null;
  readonly publishedAt: Date;
  /** Which source produced it: "embedded", "pyth", "jupiter". */
  readonly source: string;
}

export interface PriceSource {
  /**
   * Latest prices for the given assets. Assets the source has no price for are absent from the map.
   * Throws (e.g. PriceSourceError) when the source cannot be reached or answers malformed data.
   */
  latest(assetIds: string[]): Promise<Map<string, PriceQuote>>;
  /** Whether the source can ever price this asset (has a feed / mint for it). Absent: every asset. */
  supports?(assetId: string): boolean;
}

/** A source failed to answer usably: transport, HTTP status, or a malformed body. Internal, never sent to clients. */
export class PriceSourceError extends Error {
  override readonly name = 'PriceSourceError';
}

export interface FreshPricesOptions {
  source: PriceSource;
  /** Assets to keep priced. */
  assetIds: readonly string[];
  /** A price older than this is no price. */
  maxAgeMs: number;
  /** Confidence half-width over price, in bps; wider is no price. */
  maxConfidenceBps: number;
  /** Background refresh period. */
  refreshIntervalMs: number;
  /** Rule for quotes without confidence (see the module table). Default 'accept'. */
  missingConfidence?: 'accept' | 'reject';
  /** Where prices age and the refresh runs. */
  clock: Clock;
  /** Called with every failed refresh (for logs/metrics); must not throw. */
  onRefreshError?: (error: unknown) => void;
}

export interface FreshPricesStatus {
  loaded: boolean;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  consecutiveFailures: number;
}

export interface PairRate {
  from: PriceQuote;
  to: PriceQuote;
}

const BPS = 10_000n;
/** check()'s answer for an asset the source does not price (PAIR_NOT_SUPPORTED, not unavailable). */
const NOT_SUPPORTED = 'not supported';

export class FreshPrices {
  private snapshot = new Map<string, PriceQuote>();
  private loaded = false;
  private lastSuccessAt: number | null = null;
  private lastFailureAt: number | null = null;
  private consecutiveFailures = 0;
  private timer: Timer | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly tracked: Set<string>;

  constructor(private readonly opts: FreshPricesOptions) {
    if (!(opts.maxAgeMs > 0)) throw new RangeError('maxAgeMs must be positive');
    if (!(opts.refreshIntervalMs > 0)) throw new RangeError('refreshIntervalMs must be positive');
    if (!Number.isInteger(opts.maxConfidenceBps) || opts.maxConfidenceBps < 0) throw new RangeError('maxConfidenceBps must be a non-negative integer');
    this.tracked = new Set(opts.assetIds);
  }

  /** Seconds a client should wait: until the next refresh has had a chance to land. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.opts.refreshIntervalMs / 1000));
  }

  /**
   * One refresh: asks the source for every tracked asset the source supports and, on success,
   * replaces the snapshot (assets missing from the answer are dropped). On failure keeps the
   * snapshot and reports the error; never throws. Concurrent calls share one request.
   */
  refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const ids = [...this.tracked].filter((id) => this.opts.source.supports?.(id) ?? true);
    this.inFlight = (async () => {
      try {
        const answer = await this.opts.source.latest(ids);
        const next = new Map<string, PriceQuote>();
        for (const id of ids) {
          const q = answer.get(id);
          if (q && q.assetId === id) next.set(id, q);
        }
        this.snapshot = next;
        this.loaded = true;
        this.lastSuccessAt = this.opts.clock.now();
        this.consecutiveFailures = 0;
      } catch (e) {
        this.lastFailureAt = this.opts.clock.now();
        this.consecutiveFailures++;
        try {
          this.opts.onRefreshError?.(e);
        } catch {
          /* a logging hook must not break refreshing */
        }
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  /** Loads once (waiting for the first answer, success or not) and then refreshes in the background. */
  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = this.opts.clock.every(this.opts.refreshIntervalMs, () => void this.refresh());
    await this.refresh();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  status(): FreshPricesStatus {
    return {
      loaded: this.loaded,
      lastSuccessAt: this.lastSuccessAt === null ? null : new Date(this.lastSuccessAt),
      lastFailureAt: this.lastFailureAt === null ? null : new Date(this.lastFailureAt),
      consecutiveFailures: this.consecutiveFailures,
    };
  }

  /** The raw snapshot (unvalidated), for admin views and metrics. */
  peek(assetId: string): PriceQuote | undefined {
    return this.snapshot.get(assetId);
  }

  /**
   * Validated prices of both sides of a swap, from memory only. Throws HushError
   * PAIR_NOT_SUPPORTED or SERVICE_UNAVAILABLE (with Retry-After) per the module table.
   */
  pairRate(sourceAssetId: string, destinationAssetId: string): PairRate {
    const pair = { sourceAssetId, destinationAssetId };
    const now = this.opts.clock.now();
    return { from: this.validated(sourceAssetId, pair, now), to: this.validated(destinationAssetId, pair, now) };
  }

  /**
   * One asset's validated price now, or null: what a fee conversion needs, on every quote. One check where a
   * pair read made two, and no error built and thrown to say "none" (issue 56).
   */
  priceNow(assetId: string): PriceQuote | null {
    const q = this.check(assetId, this.opts.clock.now());
    return typeof q === 'string' ? null : q;
  }

  private validated(assetId: string, pair: { sourceAssetId: string; destinationAssetId: string }, now: number): PriceQuote {
    const q = this.check(assetId, now);
    if (q === NOT_SUPPORTED) throw notSupported(pair);
    if (typeof q === 'string') throw unavailable(pair, q, this.retryAfterSeconds);
    return q;
  }

  /** The asset's price when usable now; else NOT_SUPPORTED or why it is unavailable. */
  private check(assetId: string, now: number): PriceQuote | string {
    // No local closures here: on the quote path this runs several times per request, and the loader's
    // keepNames wraps every named closure in a defineProperty call.
    if (!this.tracked.has(assetId) || this.opts.source.supports?.(assetId) === false) return NOT_SUPPORTED;
    if (!this.loaded) return 'prices not loaded yet';
    const q = this.snapshot.get(assetId);
    if (!q) return NOT_SUPPORTED;
    const age = now - q.publishedAt.getTime();
    if (!Number.isFinite(age) || age > this.opts.maxAgeMs || age < -this.opts.maxAgeMs) return 'price too old';
    if (q.price.num <= 0n || q.price.den <= 0n) return 'invalid price';
    if (q.confidence === null) {
      if ((this.opts.missingConfidence ?? 'accept') === 'reject') return 'no confidence interval';
    } else {
      // conf / price > maxBps / 10000  ⇔  conf.num × price.den × 10000 > maxBps × conf.den × price.num
      const c = q.confidence;
      if (c.num < 0n || c.den <= 0n || c.num * q.price.den * BPS > BigInt(this.opts.maxConfidenceBps) * c.den * q.price.num) return 'price too uncertain';
    }
    return q;
  }
}

function notSupported(pair: { sourceAssetId: string; destinationAssetId: string }): HushError {
  return new HushError('PAIR_NOT_SUPPORTED', `No price source for ${pair.sourceAssetId} to ${pair.destinationAssetId}`, pair);
}

function unavailable(pair: { sourceAssetId: string; destinationAssetId: string }, why: string, retryAfterSeconds: number): HushError {
  return new HushError('SERVICE_UNAVAILABLE', `Swap pricing for ${pair.sourceAssetId} to ${pair.destinationAssetId} is unavailable right now (${why}); try again shortly`, undefined, {
    retryAfterSeconds,
  });
}
