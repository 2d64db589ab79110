import pLimit from 'p-limit';

/**
 * At most this many requests in flight per client, as a partner backend's connection pool bounds them: an
 * unbounded fetch opens a connection per waiting request once answers slow down (a loaded machine), and past
 * Hush's per-address cap (HUSH_MAX_CONNECTIONS_PER_IP, 64) those are refused — the bench would then measure
 * its own client, not Hush.
 */
const IN_FLIGHT = 32;

/** The public Hush API as the bench's partner and its adversary call it: JSON over HTTP with a bearer key. */
export class HushApi {
  requests = 0;
  private readonly inFlight = pLimit(IN_FLIGHT);
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      this.requests++;
      let res: Response;
      let json: { error?: { code: string; message: string } } & T;
      try {
        // The body is read inside the bound too: the connection is busy until it is.
        [res, json] = await this.inFlight(async () => {
          const r = await fetch(`${this.baseUrl}/transfer/v1${path}`, {
            method,
            headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return [r, (await r.json().catch(() => ({}))) as { error?: { code: string; message: string } } & T] as const;
        });
      } catch (e) {
        // A connection refused or reset under load: retried as a careful client does (an order carries
        // its idempotency key, so a retry never makes a second one).
        if (attempt < 8) {
          await new Promise((r) => setTimeout(r, 250 * 2 ** Math.min(attempt, 4)));
          continue;
        }
        throw e;
      }
      if (res.ok) return json;
      // A rate limit or a busy service is waited out, as a careful client does; anything else is a bench bug.
      if ((res.status === 429 || res.status === 503) && attempt < 20) {
        await new Promise((r) => setTimeout(r, 1000 * Math.max(0.2, Number(res.headers.get('retry-after') ?? 1))));
        continue;
      }
      throw new Error(`${method} ${path}: HTTP ${res.status} ${json.error?.code ?? ''} ${json.error?.message ?? ''}`);
    }
  }
}
