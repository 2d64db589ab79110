import type { Clock } from '../support/clock.ts';

/** Buckets kept at most; past it, the full ones (forgotten accounts) go first. */
const MAX_BUCKETS = 50_000;

/**
 * A token bucket per account, in process: `rate` per second, holding 2 × rate (docs/spec.md §7's burst ×2).
 * What the risk-API budget per account needs (issue 50); the HTTP rate limits keep theirs in the rate-limit
 * store (shared through Redis), this one is per process (N API processes allow N × rate).
 */
export class AccountBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly capacity: number;

  constructor(
    private readonly rate: number,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.capacity = 2 * rate;
  }

  /** Takes one token: 0 when granted, else the milliseconds until one is there. */
  take(account: string): number {
    const now = this.clock.now();
    const b = this.buckets.get(account);
    const tokens = b ? Math.min(this.capacity, b.tokens + ((now - b.at) * this.rate) / 1000) : this.capacity;
    if (tokens < 1) {
      this.buckets.set(account, { tokens, at: now });
      return Math.max(1, Math.ceil(((1 - tokens) * 1000) / this.rate));
    }
    if (!b && this.buckets.size >= MAX_BUCKETS) this.evict(now);
    this.buckets.set(account, { tokens: tokens - 1, at: now });
    return 0;
  }

  private evict(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) * this.rate) / 1000 >= this.capacity) this.buckets.delete(k);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }
}
