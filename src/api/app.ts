import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { tokenBucketStore } from './token-bucket-store.ts';
import { batchResponseWrites } from './response-batching.ts';
import { addIetfRateLimitFields } from './ratelimit-fields.ts';
import swagger from '@fastify/swagger';
import type { HushConfig } from '../config/config.ts';
import { HushError } from '../domain/errors.ts';
import { API_DESCRIPTION, finishDocument } from './schemas.ts';
import type { Caller } from '../services/authenticator.ts';
import { answerFrameworkError, clientErrorAnswerer, installErrorHandling, takeAnonymousToken, type AnonymousLimiter, type ConnectionBucket } from './error-handler.ts';
import { BODY_LIMIT } from './limits.ts';
import { installJsonBody } from './json-body.ts';
import { requestTimer } from './metrics.ts';
import { guardConnections, type ConnectionLimits } from './connection-guard.ts';
import { RequestLogs, requestDeadlines, requestIds } from './server-options.ts';
import { transferRoutes } from './routes/transfer-routes.ts';
import { receiptPageRoutes } from './pages/receipt-page-routes.ts';
import { apiReference } from './reference-assets.ts';
import type { ApiDeps } from './deps.ts';
import { compilersFactory } from './schema-compilers.ts';

export type { ApiDeps } from './deps.ts';


declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** Which hops of X-Forwarded-For to believe (HUSH_TRUST_PROXY), as the function Fastify and proxy-addr take. */
function trustFunction(setting: HushConfig['trustProxy']): ((address: string, hop: number) => boolean) | null {
  if (setting === false) return null;
  return proxyAddr.compile(setting.split(',').map((a) => a.trim()));
}

/**
 * The client's address from the raw request: the same answer as Fastify's `request.ip`, also for requests
 * Fastify builds without its trustProxy support (router failures). An IPv6 /56 counts as one address.
 */
function clientAddress(raw: IncomingMessage, trust: ((address: string, hop: number) => boolean) | null): string {
  try {
    const address = trust ? proxyAddr(raw, trust) : raw.socket.remoteAddress;
    return address ? normalizeIP(address, 56) : 'unknown';
  } catch {
    return 'unknown'; // a connection already gone has no address
  }
}

/** Host header lines as sent (Node keeps only the first in `headers`). */
function hostHeaders(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

const rateLimited = (message: string) => (_req: unknown, ctx: { ttl: number }) =>
  new HushError('RATE_LIMITED', message, undefined, { retryAfterSeconds: Math.max(1, Math.ceil(ctx.ttl / 1000)) });

/**
 * The bucket of requests the HTTP parser refused, per connection address (IPv6 /56): the anonymous rate,
 * in a bucket of its own because the plugin's are reached only through a parsed request.
 */
function connectionBucket(deps: ApiDeps): ConnectionBucket {
  const limit = 2 * deps.config.anonymousRateLimit;
  const store = new (tokenBucketStore(deps.clock, deps.redis))({});
  return (address) =>
    new Promise((resolve) =>
      store.incr(
        `http:${normalizeIP(address, 56)}`,
        // An unreachable store fails open, and the headers show a full bucket, as the plugin's do.
        (e, r) => resolve(e || !r ? { limit, remaining: limit, resetS: 0, refused: false } : { limit, remaining: Math.max(0, limit - r.current), resetS: Math.ceil(r.ttl / 1000), refused: r.current > limit }),
        2000,
        limit,
      ),
    );
}

/** The HTTP application as a value: the server file only listens; tests use it on a real port or inject(). */
export async function buildApp(deps: ApiDeps, opts: { logger?: FastifyServerOptions['logger']; connections?: ConnectionLimits } = {}): Promise<FastifyInstance> {
  // Set once the rate-limit plugin is registered, before the server can receive a request.
  let limitAnonymous: AnonymousLimiter | undefined;
  const trust = trustFunction(deps.config.trustProxy);
  const deadlines = requestDeadlines(deps.config.requestTimeoutMs);
  const requestId = requestIds(deps.random);
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new RequestLogs(),
    trustProxy: trust ?? false,
    bodyLimit: BODY_LIMIT,
    // A path parameter longer than any id (a trackingId is 26 characters) matches no route: 404, like any unknown id.
    routerOptions: { maxParamLength: 64 },
    // Requests that arrive while draining are still served (and answered in the SPEC shape).
    return503OnClosing: false,
    genReqId: requestId,
    frameworkErrors: (err, request, reply) => answerFrameworkError(err, request, reply, limitAnonymous),
    clientErrorHandler: clientErrorAnswerer(deps, connectionBucket(deps)),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    // Compiled once per process for the same schemas (schema-compilers.ts).
    schemaController: { compilersFactory },
    ...deadlines,
    // Node would answer a missing Host itself (an empty 400 without our headers): the hook below does.
    http: { ...deadlines.http, requireHostHeader: false },
  });
  app.decorateRequest('caller', null);
  // docs/spec.md §7 "Connections": per address on the socket's address, which behind a trusted proxy is the
  // proxy's (its connections carry many clients: not counted per address, only in the total).
  guardConnections(app.server, {
    listener: 'partner',
    ...(opts.connections ?? { maxTotal: deps.config.maxConnections, maxPerAddress: deps.config.maxConnectionsPerIp, writeTimeoutMs: deps.config.writeTimeoutMs }),
    metrics: deps.metrics.connections,
    ...(trust ? { exempt: (address: string) => trust(address, 0) } : {}),
    warn: (fields, msg) => app.log.warn(fields, msg),
    clock: deps.clock,
    requestId,
  });
  const timeRequest = requestTimer(deps.metrics, deps.clock);
  // One hook for what every request needs first: its id echoed, its latency measured.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    timeRequest(request, reply);
    // Shutting down: each connection is closed after its answer, so none is idle (and reset mid-request) when the server closes.
    if (deps.draining?.()) reply.header('connection', 'close');
    // HTTP/1.1 requires exactly one Host (RFC 9112 §3.2): else a bad request, answered like the other unkeyed ones.
    const hosts = hostHeaders(request.raw.rawHeaders);
    if (hosts > 1 || (hosts === 0 && request.raw.httpVersion === '1.1')) {
      const reason = hosts ? 'more than one Host header' : 'missing Host header';
      reply.header('connection', 'close');
      return void takeAnonymousToken(limitAnonymous, request, reply).then((limited) => done(limited ?? new HushError('INVALID_REQUEST', `Invalid request: ${reason}`, { reason })));
    }
    done();
  });
  addIetfRateLimitFields(app);
  batchResponseWrites(app);
  installJsonBody(app);

  await app.register(swagger, {
    openapi: {
      // 3.1: JSON Schema 2020-12 schemas and the `webhooks` the events are documented in.
      openapi: '3.1.0',
      info: { title: 'Hush private transfer API', version: '1.0.0', description: API_DESCRIPTION },
      // Relative first: the document is served by the Hush it describes, so a client that loaded it (the reference
      // page's "Try it out", an import into an HTTP tool) calls that Hush; the second is the quick start's address.
      servers: [
        { url: '/', description: 'The Hush that serves this document (its partner port)' },
        { url: 'http://127.0.0.1:8787', description: 'A local Hush started with npm start' },
      ],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer hush_<keyId>_<secret>, an API key the operator issues for your account' } },
      },
      security: [{ bearer: [] }],
    },
    // Named components, an example per error code, the webhooks: the document only, never what routes do.
    transformObject: (doc) => ('openapiObject' in doc ? (finishDocument(doc.openapiObject as Record<string, unknown>) as typeof doc.openapiObject) : doc.swaggerObject),
  });
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    // After authentication (onRequest) but before body parsing and validation, so invalid requests are
    // limited and carry the RateLimit-* headers too (docs/spec.md §7: on every response).
    hook: 'preParsing',
    store: tokenBucketStore(deps.clock, deps.redis),
    // Redis down must not take the API down: requests then pass unlimited (see docs/decisions.md).
    skipOnError: true,
    keyGenerator: (req) => req.caller?.account.id ?? req.ip,
    errorResponseBuilder: rateLimited('Too many requests for this account (all its keys together); slow down'),
  });
  // docs/spec.md §7 puts RateLimit-* on every response: answers that no key's bucket covers (failed authentication,
  // no such route) take from a bucket per client address, which also bounds how fast one address can guess keys.
  limitAnonymous = app.rateLimit({
    max: 2 * deps.config.anonymousRateLimit,
    timeWindow: 2000,
    keyGenerator: (req) => `anon:${clientAddress(req.raw, trust)}`,
    errorResponseBuilder: rateLimited('Too many unauthenticated or unroutable requests from this address; slow down'),
  }) as unknown as AnonymousLimiter;
  installErrorHandling(app, limitAnonymous);

  // docs/spec.md §12: the public receipt-check page (a static page and its scripts; no key, no account data).
  await app.register(receiptPageRoutes, { config: deps.config });
  // /healthz, /readyz, /metrics and /admin/v1 are on the ops listener (ops-app.ts), not here (docs/spec.md §4).
  await app.register(transferRoutes, { prefix: '/transfer/v1', deps, limitAnonymous });

  await apiReference(app, { limitAnonymous });
  return app;
}
