import { ConfigError } from './config-error.ts';
import { envInt } from './env-int.ts';

/** docs/spec.md §12 screening: which providers, how long an answer is reused, what an unanswered check does. */
export interface ScreeningSettings {
  /** HUSH_SCREENING_LISTS: comma-separated paths of blocked-address files (OFAC SDN CSV/XML or one address a line). */
  screeningLists: string[];
  /** HUSH_SCREENING_URL: an address-risk API (GET <url>/v1/address/<address>); absent → no HTTP provider. */
  screeningUrl?: string;
  /** HUSH_SCREENING_KEY: sent as X-API-Key to the risk API. */
  screeningKey?: string;
  /** HUSH_SCREENING_TIMEOUT_MS (default 2000). */
  screeningTimeoutMs: number;
  /** HUSH_SCREENING_CACHE_TTL_S (default 600): how long the risk API's answer for an address is reused. */
  screeningCacheTtlS: number;
  /** HUSH_SCREENING_ON_ERROR: hold (default) or allow when the risk API does not answer. */
  screeningOnError: 'hold' | 'allow';
  /** HUSH_SCREENING_RELOAD_MS (default 5000): how often the list files are checked for changes. */
  screeningReloadMs: number;
  /**
   * HUSH_SCREENING_RATE_LIMIT (default 40): risk-API calls per second one account's quotes may cause (burst ×2;
   * answers from the cache are free). Past it, the quote is 429 RATE_LIMITED (issue 50: 10 keys of one account
   * cost 1,684 provider calls in 3 s). Twice the default quote rate: a quote screens two new addresses at most.
   */
  screeningRatePerAccount: number;
}

export function screeningSettings(env: NodeJS.ProcessEnv): ScreeningSettings {
  const onError = env.HUSH_SCREENING_ON_ERROR || 'hold';
  if (onError !== 'hold' && onError !== 'allow') throw new ConfigError(`HUSH_SCREENING_ON_ERROR must be hold or allow, got "${env.HUSH_SCREENING_ON_ERROR}"`);
  const url = env.HUSH_SCREENING_URL || undefined;
  if (url !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(url).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError('HUSH_SCREENING_URL must be an http(s) URL');
  }
  return {
    screeningLists: (env.HUSH_SCREENING_LISTS ?? '').split(',').map((p) => p.trim()).filter((p) => p !== ''),
    ...(url ? { screeningUrl: url } : {}),
    ...(env.HUSH_SCREENING_KEY ? { screeningKey: env.HUSH_SCREENING_KEY } : {}),
    screeningTimeoutMs: envInt(env, 'HUSH_SCREENING_TIMEOUT_MS', 2000, 50, 60_000),
    screeningCacheTtlS: envInt(env, 'HUSH_SCREENING_CACHE_TTL_S', 600, 0, 86_400),
    screeningOnError: onError,
    screeningReloadMs: envInt(env, 'HUSH_SCREENING_RELOAD_MS', 5000, 100, 3_600_000),
    screeningRatePerAccount: envInt(env, 'HUSH_SCREENING_RATE_LIMIT', 40, 1, 1_000_000),
  };
}
