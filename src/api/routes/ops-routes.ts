import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.ts';

/** What the operational routes read; the ops listener's deps extend it. */
export interface OpsRouteDeps {
  /** What /readyz reports: read from state the process keeps, never a chain call (src/runtime/readiness.ts). */
  ready(): Promise<{ store: boolean; chain: boolean; starting?: boolean }>;
  metrics: Metrics;
  /** True once shutdown began: answers close their connection, /readyz is 503. */
  draining?(): boolean;
  /** docs/spec.md §12: screening as one line (`off`, or its lists' versions, provider and failure policy) (every role: the API screens quotes, the worker deposits and payouts). */
  screening?(): string;
}

/** Seconds a load balancer is told to wait before asking again (every 503 carries Retry-After, docs/spec.md §6). */
const NOT_READY_RETRY_S = '5';

/** Operational endpoints of the ops listener: no auth, never on the partner port (docs/spec.md §4). */
export async function opsRoutes(app: FastifyInstance, { deps }: { deps: OpsRouteDeps }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    if (deps.draining?.()) {
      return reply
        .code(503)
        .header('retry-after', NOT_READY_RETRY_S)
        .send({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: shutting down', details: { draining: true }, requestId: request.id } });
    }
    const r = await deps.ready();
    const parts: Record<string, string> = { store: r.store ? 'ok' : 'unreachable', chain: r.chain ? 'ok' : 'unreachable' };
    if (r.starting) parts.start = 'in progress'; // funding at start still waiting out the chain
    if (deps.screening) parts.screening = deps.screening();
    if (r.store && r.chain && !r.starting) return reply.send({ success: true, ...parts });
    // A failure keeps the docs/spec.md §2 error shape like every other response.
    return reply
      .code(503)
      .header('retry-after', NOT_READY_RETRY_S)
      .send({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: r.starting ? 'Not ready: starting (waiting for the chain)' : 'Not ready: the store or the chain is unreachable', details: parts, requestId: request.id } });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}
