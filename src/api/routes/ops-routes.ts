import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../app.ts';

/** Operational endpoints: no auth, not under the partner prefix (SPEC §4). */
export async function opsRoutes(app: FastifyInstance, { deps }: { deps: ApiDeps }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const r = await deps.ready();
    const ok = r.store && r.chain;
    return reply.code(ok ? 200 : 503).send({ success: ok, store: r.store ? 'ok' : 'unreachable', chain: r.chain ? 'ok' : 'unreachable' });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}
