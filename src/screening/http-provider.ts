import { globalFetch, type FetchLike } from '../support/fetch-like.ts';
import type { ScreeningProvider, ScreeningVerdict } from './screening-port.ts';
import type { Clock } from '../support/clock.ts';

/** A risk API that has not answered in this long is an error (then HUSH_SCREENING_ON_ERROR decides). */
export const DEFAULT_SCREENING_TIMEOUT_MS = 2_000;

/**
 * docs/spec.md §12 HTTP provider, in the shape common address-risk APIs share: `GET <url>/v1/address/<address>`
 * with the key in `X-API-Key`, answered `200 {"address": "...", "risk": "severe|high|medium|low|none",
 * "blocked": true|false, "reason"?: "..."}`. Blocked when `blocked` is true; any other status, a body
 * without a boolean `blocked`, or no answer within the timeout is an error, never a clear.
 */
export class HttpProvider implements ScreeningProvider {
  readonly name: string;

  constructor(
    private readonly url: string,
    private readonly key: string | undefined,
    /** Where the answer's timeout runs. */
    private readonly clock: Pick<Clock, 'timeout'>,
    private readonly timeoutMs = DEFAULT_SCREENING_TIMEOUT_MS,
    /** The network (src/support/fetch-like.ts). */
    private readonly fetchFn: FetchLike = globalFetch,
  ) {
    this.name = `http:${new URL(url).host}`;
  }

  async check(address: string): Promise<ScreeningVerdict> {
    const error = (reason: string): ScreeningVerdict => ({ result: 'error', address, list: this.name, reason });
    try {
      const res = await this.fetchFn(`${this.url.replace(/\/$/, '')}/v1/address/${encodeURIComponent(address)}`, {
        headers: { accept: 'application/json', ...(this.key ? { 'x-api-key': this.key } : {}) },
        signal: this.clock.timeout(this.timeoutMs),
      });
      if (res.status !== 200) return error(`HTTP ${res.status}`);
      const body = (await res.json()) as { blocked?: unknown; risk?: unknown; reason?: unknown };
      if (typeof body.blocked !== 'boolean') return error('answer without a boolean "blocked"');
      if (!body.blocked) return { result: 'clear' };
      const reason = typeof body.reason === 'string' ? body.reason : typeof body.risk === 'string' ? `risk ${body.risk}` : 'blocked';
      return { result: 'blocked', address, reason: reason.slice(0, 200), list: this.name, version: this.name };
    } catch (e) {
      return error((e as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (e as Error).message.slice(0, 200));
    }
  }
}
