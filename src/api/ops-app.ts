import Fastify, { type FastifyInstance } from 'fastify';
import type { ApiDeps } from './deps.ts';
import { installErrorHandling } from './error-handler.ts';
import { requestTimer } from './metrics.ts';
import { opsRoutes } from './routes/ops-routes.ts';
import { requestDeadlines, requestIdOf } from './server-options.ts';

/**
 * The operational routes alone (/healthz, /readyz, /metrics), for a process that serves no partner API —
 * a worker — so it can be probed and scraped like an API process. Same error shape and request ids.
 */
export async function buildOpsApp(deps: Pick<ApiDeps, 'ready' | 'metrics' | 'draining'>, opts: { requestTimeoutMs?: number } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, return503OnClosing: false, genReqId: requestIdOf, ...requestDeadlines(opts.requestTimeoutMs ?? 30_000) });
  const timeRequest = requestTimer(deps.metrics);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    timeRequest(request, reply);
    done();
  });
  installErrorHandling(app);
  await app.register(opsRoutes, { deps });
  return app;
}
