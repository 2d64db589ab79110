import type { FastifyInstance } from 'fastify';

export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** No process answers: Hush is down (between a crash and its restart) or died while answering. */
export class Unreachable extends Error {}

/** One partner API process a request reached, and whether it still lives. */
export interface Route {
  app: FastifyInstance;
  alive(): boolean;
}

/** The processes requests reach: a live partner API, as a load balancer picks it (null: none is up). */
export interface Endpoint {
  route(): Route | null;
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
    const route = this.endpoint.route();
    if (!route) throw new Unreachable(`${method} ${path}: no process listening`);
    this.endpoint.requestsInFlight++;
    try {
      const res = await route.app.inject({
        method,
        url: `/transfer/v1${path}`,
        headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      if (!route.alive()) throw new Unreachable(`${method} ${path}: the process died while answering`);
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
