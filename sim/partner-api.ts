import type { FastifyInstance } from 'fastify';

export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** No process answers: Hush is down (between a crash and its restart) or died while answering. */
export class Unreachable extends Error {}

/** The process a request reaches: the live Hush's partner app, and whether it is still the same life. */
export interface Endpoint {
  app(): FastifyInstance | null;
  lifeNumber(): number;
  /** Requests sent and not yet answered (the simulator's quiescence check). */
  requestsInFlight: number;
}

/**
 * A partner's calls to the partner API, in process (Fastify `inject`, no socket): what a partner's server
 * sends, with its key. A request that reaches no process, or whose process dies before answering, is a
 * network error to the partner (it retries), never an answer.
 */
export class PartnerApi {
  constructor(
    private readonly endpoint: Endpoint,
    private readonly key: string,
  ) {}

  async call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const app = this.endpoint.app();
    if (!app) throw new Unreachable(`${method} ${path}: no process listening`);
    const life = this.endpoint.lifeNumber();
    this.endpoint.requestsInFlight++;
    try {
      const res = await app.inject({
        method,
        url: `/transfer/v1${path}`,
        headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      if (this.endpoint.lifeNumber() !== life) throw new Unreachable(`${method} ${path}: the process died while answering`);
      let parsed: unknown = res.body;
      try {
        parsed = res.body === '' ? null : JSON.parse(res.body);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    } finally {
      this.endpoint.requestsInFlight--;
    }
  }

  quote(body: unknown) {
    return this.call('POST', '/quote', body);
  }
  order(body: unknown, idempotencyKey?: string) {
    return this.call('POST', '/order', body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  }
  refresh(trackingId: string) {
    return this.call('POST', `/order/${trackingId}/refresh`);
  }
  status(trackingId: string) {
    return this.call('GET', `/status/${trackingId}`);
  }
  hint(trackingId: string, signature: string) {
    return this.call('POST', '/deposit', { trackingId, signature });
  }
}
