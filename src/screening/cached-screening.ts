import { HushError } from '../domain/errors.ts';
import type { Screening, ScreeningDescription, ScreeningFinding, ScreeningProvider, ScreeningVerdict } from './screening-port.ts';
import type { ListProvider } from './list-provider.ts';
import { AccountBuckets } from './account-buckets.ts';
import type { Clock } from '../support/clock.ts';

/** How long an HTTP provider's answer per address is reused (docs/spec.md §12). Lists are not cached: they answer from memory. */
export const DEFAULT_SCREENING_CACHE_TTL_MS = 10 * 60_000;
const CACHE_MAX = 50_000;

/**
 * The port over its providers: lists first (in memory), then the HTTP provider, whose clear and blocked
 * answers are cached per address for the TTL (errors are not cached: the next check asks again).
 */
export class ProviderScreening implements Screening {
  readonly enabled = true;
  private readonly cache = new Map<string, { verdict: ScreeningVerdict; until: number }>();
  private readonly budgets: AccountBuckets;

  constructor(
    private readonly lists: ListProvider | null,
    private readonly http: ScreeningProvider | null,
    private readonly description: () => ScreeningDescription,
    /** Where the answers' life and the accounts' budgets are timed. */
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ttlMs = DEFAULT_SCREENING_CACHE_TTL_MS,
    /** Risk-API calls per second per account (HUSH_SCREENING_RATE_LIMIT), burst ×2; cache hits are free. */
    accountRate = 40,
  ) {
    this.budgets = new AccountBuckets(accountRate, clock);
  }

  describe(): ScreeningDescription {
    return this.description();
  }

  async check(addresses: readonly string[], opts?: { account?: string }): Promise<ScreeningVerdict> {
    let error: ScreeningVerdict | null = null;
    const verdicts = await Promise.all(addresses.map((a) => this.one(a, opts?.account)));
    for (const v of verdicts) {
      if (v.result === 'blocked') return v;
      if (v.result === 'error') error ??= v;
    }
    return error ?? { result: 'clear' };
  }

  checkEach(addresses: readonly string[]): Promise<ScreeningVerdict[]> {
    return Promise.all(addresses.map((a) => this.one(a, undefined)));
  }

  findingsEach(addresses: readonly string[]): Promise<ScreeningFinding[][]> {
    return Promise.all(
      addresses.map(async (a) => {
        const listed = this.lists?.listings(a) ?? [];
        const answer = this.http ? await this.asked(this.http, a, undefined) : ({ result: 'clear' } as const);
        return answer.result === 'clear' ? listed : [...listed, answer];
      }),
    );
  }

  private async one(address: string, account: string | undefined): Promise<ScreeningVerdict> {
    const listed = this.lists ? this.lists.check(address) : { result: 'clear' as const };
    if (listed.result !== 'clear' || !this.http) return listed;
    return this.asked(this.http, address, account);
  }

  /** The HTTP provider's answer, from the cache while it lasts; a new question is taken from `account`'s budget. */
  private async asked(http: ScreeningProvider, address: string, account: string | undefined): Promise<ScreeningVerdict> {
    const now = this.clock.now();
    const hit = this.cache.get(address);
    if (hit && hit.until > now) return hit.verdict;
    const waitMs = account === undefined ? 0 : this.budgets.take(account);
    if (waitMs > 0) {
      throw new HushError('RATE_LIMITED', 'Too many new addresses screened for this account; slow down', undefined, { retryAfterSeconds: Math.ceil(waitMs / 1000) });
    }
    const verdict = await http.check(address);
    if (verdict.result !== 'error') {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(address, { verdict, until: now + this.ttlMs });
    }
    return verdict;
  }
}
