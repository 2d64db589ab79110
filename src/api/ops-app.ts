import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AdminApi } from './deps.ts';
import type { AdminThrottle } from './admin-throttle.ts';
import { answerFrameworkError, clientErrorAnswerer, installErrorHandling } from './error-handler.ts';
import { installJsonBody } from './json-body.ts';
import { BODY_LIMIT } from './limits.ts';
import { requestTimer } from './metrics.ts';
import { guardConnections, type ConnectionLimits } from './connection-guard.ts';
import { adminRoutes } from './routes/admin-routes.ts';
import { consoleRoutes, type ConsoleAsset, type ConsoleExplorer } from './pages/console-routes.ts';
import { consoleSignInRoutes } from './pages/console-sign-in-routes.ts';
import type { OidcSettings } from '../config/operator-settings.ts';
import { opsRoutes, type OpsRouteDeps } from './routes/ops-routes.ts';
import { DEFAULT_OPS_MAX_CONNECTIONS } from '../config/connection-settings.ts';
import { RequestLogs, requestDeadlines, requestIds } from './server-options.ts';
import { hostnameOf, servedHost } from './served-host.ts';
import { HushError } from '../domain/errors.ts';
import { compilersFactory } from './schema-compilers.ts';

export interface OpsDeps extends OpsRouteDeps {
  /** Host names served besides address literals and `localhost` (HUSH_OPS_HOSTNAMES). */
  hostnames?: readonly string[];
  /** `/admin/v1`, served only when given (HUSH_ADMIN_TOKEN set). */
  admin?: { token: string; api: AdminApi; afterChange?: (accountId?: string) => void; throttle?: AdminThrottle; assets?: readonly ConsoleAsset[]; oidc?: OidcSettings; explorer?: ConsoleExplorer };
}

/**
 * The ops listener of every role (HUSH_OPS_HOST:HUSH_OPS_PORT, loopback by default): /healthz, /readyz,
 * /metrics and the admin API, none of which the partner port serves (docs/spec.md §4). Same error shape, request
 * ids, body parsing and request deadlines as the partner API.
 */
export async function buildOpsApp(
  deps: OpsDeps,
  opts: { requestTimeoutMs?: number; logger?: FastifyServerOptions['logger']; connections?: ConnectionLimits } = {},
): Promise<FastifyInstance> {
  const requestId = requestIds(deps.random);
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new RequestLogs(),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 64 },
    return503OnClosing: false,
    genReqId: requestId,
    frameworkErrors: (err, request, reply) => answerFrameworkError(err, request, reply),
    // What the HTTP parser refuses is answered in the SPEC shape too (no bucket: the listener is not public).
    clientErrorHandler: clientErrorAnswerer(deps),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    // Compiled once per process for the same schemas (schema-compilers.ts).
    schemaController: { compilersFactory },
    ...requestDeadlines(opts.requestTimeoutMs ?? 30_000),
  });
  // A cap of its own, whatever the partner port's load (docs/spec.md §7 "Connections").
  guardConnections(app.server, { listener: 'ops', ...(opts.connections ?? { maxTotal: DEFAULT_OPS_MAX_CONNECTIONS, maxPerAddress: 0 }), metrics: deps.metrics.connections, warn: (fields, msg) => app.log.warn(fields, msg), clock: deps.clock, requestId });
  const timeRequest = requestTimer(deps.metrics, deps.clock);
  const hostnames = new Set(deps.hostnames ?? []);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    timeRequest(request, reply);
    if (deps.draining?.()) reply.header('connection', 'close');
    if (!servedHost(request.headers.host, hostnames)) {
      const name = (hostnameOf(request.headers.host) ?? '').slice(0, 100);
      return done(new HushError('INVALID_REQUEST', `This listener does not serve the host "${name}"; if it is yours, add it to HUSH_OPS_HOSTNAMES`));
    }
    done();
  });
  installJsonBody(app);
  installErrorHandling(app);
  await app.register(opsRoutes, { deps });
  if (deps.admin) {
    const { token, api, afterChange, throttle } = deps.admin;
    await app.register(adminRoutes, { prefix: '/admin/v1', token, admin: api, afterChange, throttle, clock: deps.clock, sso: Boolean(deps.admin.oidc) });
    // The operator console: its files need no token, what it shows comes from /admin/v1 (docs/compliance.md).
    const { oidc } = deps.admin;
    await app.register(consoleRoutes, { assets: deps.admin.assets ?? [], sso: Boolean(oidc && api.operators), ...(deps.admin.explorer ? { explorer: deps.admin.explorer } : {}) });
    if (oidc && api.operators) await app.register(consoleSignInRoutes, { oidc, operators: api.operators, clock: deps.clock, random: deps.random });
  }
  return app;
}
