/**
 * A partner's client the way an operator's runbook expects partners to behave towards an API that is
 * restarted and answers 503 while its chain is away: it retries refused or cut connections and 503s
 * (waiting their Retry-After, capped at a second), keeps one idempotency key across the retries of one
 * POST /order (an order whose answer was cut may have been made), and records every answer it saw, so
 * a test can hold the API to "no 5xx but 503, and every 503 says when to retry".
 */
import { AssertionError } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { HushClient, PREFIX, sleep, type ApiResponse, type RequestOptions } from './hush-server.ts';

export interface SeenAnswer {
  what: string;
  status: number;
  retryAfter: string | null;
}

export class RetryingClient extends HushClient {
  /** Every answer received, retries included. */
  readonly seen: SeenAnswer[] = [];
  /**
   * Failures of the checks every answer meets (hush-server.ts: a 500, a leak, an undocumented status):
   * callers such as waitForOrder swallow throws while they poll, so they are kept here as well.
   */
  readonly violations: string[] = [];
  /** Calls that got no answer (refused or cut) and were asked again. */
  unanswered = 0;

  constructor(
    baseUrl: string,
    key: string | null,
    /** How long one call keeps retrying before it gives up. */
    private readonly retryForMs = 60_000,
  ) {
    super(baseUrl, key);
  }

  override async request(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const what = `${method} ${path}`;
    const keyed = Object.keys(opts.headers ?? {}).some((h) => h.toLowerCase() === 'x-idempotency-key');
    const sent = method === 'POST' && path === `${PREFIX}/order` && !keyed ? { ...opts, headers: { ...opts.headers, 'x-idempotency-key': randomUUID() } } : opts;
    const deadline = Date.now() + this.retryForMs;
    for (;;) {
      let res: ApiResponse;
      try {
        res = await super.request(method, path, sent);
      } catch (e) {
        if (e instanceof AssertionError) {
          this.violations.push(`${what}: ${e.message}`);
          throw e;
        }
        // No answer (the API is down or restarting, or the connection was cut): ask again.
        if (Date.now() > deadline) throw e;
        this.unanswered++;
        await sleep(200);
        continue;
      }
      const retryAfter = res.headers.get('retry-after');
      this.seen.push({ what, status: res.status, retryAfter });
      if (res.status !== 503 || Date.now() > deadline) return res;
      await sleep(Math.min(1_000, 1_000 * (Number(retryAfter) || 1)));
    }
  }
}
