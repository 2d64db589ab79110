/**
 * Failed admin-token attempts per source address, as a token bucket of failures: `burst` wrong tokens,
 * one more forgiven every `refillMs`. While a source's bucket is empty every wrong or missing token from it
 * is refused with 429; the right one still passes (src/api/routes/admin-routes.ts). By hand (a map and two
 * numbers) because only failures count, which the rate-limit plugin cannot express, and the ops listener
 * is one process's own (no shared store needed).
 */
export class AdminThrottle {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly burst = 10,
    readonly refillMs = 6_000,
    /** Sources tracked at most; past it, full buckets are dropped first (they hold no state worth keeping). */
    private readonly maxSources = 10_000,
  ) {}

  private level(source: string, now: number): { tokens: number; at: number } {
    const b = this.buckets.get(source);
    if (!b) return { tokens: this.burst, at: now };
    const tokens = Math.min(this.burst, b.tokens + (now - b.at) / this.refillMs);
    return { tokens, at: now };
  }

  /** Seconds until this source may try again, or 0 when it may now. */
  retryAfterS(source: string, now: number): number {
    const { tokens } = this.level(source, now);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * this.refillMs) / 1000));
  }

  /** Counts one failed attempt from the source. */
  failed(source: string, now: number): void {
    const b = this.level(source, now);
    b.tokens = Math.max(0, b.tokens - 1);
    this.buckets.delete(source); // re-inserted last: the map's order is then oldest activity first
    this.buckets.set(source, b);
    if (this.buckets.size > this.maxSources) this.prune(now);
  }

  private prune(now: number): void {
    for (const [k] of this.buckets) if (this.level(k, now).tokens >= this.burst) this.buckets.delete(k);
    // Still over: the least recently failing sources go (their buckets refill meanwhile anyway).
    for (const [k] of this.buckets) {
      if (this.buckets.size <= this.maxSources) break;
      this.buckets.delete(k);
    }
  }
}
