import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCb, constants as zlib } from 'node:zlib';
import { noneMatch } from './etag.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import { takeAnonymousToken, type AnonymousLimiter } from './error-handler.ts';

const gzip = promisify(gzipCb);

/**
 * One body, precomputed once per process: as is and gzipped, each with its own validator (a strong ETag names
 * one representation: a cache that picked its stored copy by the tag in a 304 would otherwise hand gzip bytes
 * to a client that never asked for them).
 */
interface Asset {
  identity: Buffer;
  /** Compressed on the first request that takes gzip, then shared: a process whose clients never ask (curl, the
   * simulator's in-process client) never compresses, and no zlib job runs on libuv's threads unasked. */
  gzipped(): Promise<Buffer>;
  type: string;
  etag: string;
  gzipEtag: string;
}

function asset(identity: Buffer, type: string): Asset {
  const tag = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
  let zipped: Promise<Buffer> | null = null;
  const gzipped = () => {
    zipped ??= gzip(identity, { level: zlib.Z_BEST_COMPRESSION });
    zipped.catch(() => (zipped = null)); // a failure is tried again, never cached
    return zipped;
  };
  return { identity, gzipped, type, etag: `"${tag}"`, gzipEtag: `"${tag}-gzip"` };
}

const TYPES: Record<string, string> = { '.js': 'application/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** The swagger UI's own static files (its bundle alone is 1.7 MB), read and compressed once per process, on first use. */
let uiAssets: Promise<Map<string, Asset>> | null = null;
function swaggerUiAssets(): Promise<Map<string, Asset>> {
  uiAssets ??= (async () => {
    const dir = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
    const out = new Map<string, Asset>();
    for (const name of await readdir(dir)) {
      const type = TYPES[extname(name)];
      if (type) out.set(`/docs/static/${name}`, asset(await readFile(join(dir, name)), type));
    }
    return out;
  })();
  uiAssets.catch(() => (uiAssets = null)); // a failed read is tried again, never cached
  return uiAssets;
}

/**
 * Whether the client takes gzip (RFC 9110 §12.5.3): listed, or `*`, with a weight above 0. Without an
 * Accept-Encoding any coding would do by the RFC, but curl and test injectors send none and expect the plain
 * body: they get it (from the same shared buffer).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

async function send(request: FastifyRequest, reply: FastifyReply, a: Asset): Promise<FastifyReply> {
  const zipped = acceptsGzip(request.headers['accept-encoding']);
  const etag = zipped ? a.gzipEtag : a.etag;
  reply.header('vary', 'accept-encoding').header('etag', etag).header('cache-control', 'public, max-age=3600').type(a.type);
  if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  if (zipped) return reply.header('content-encoding', 'gzip').send(await a.gzipped());
  return reply.send(a.identity);
}

/**
 * The OpenAPI document (`/transfer/v1/openapi.json`, the UI's `/docs/json` and `/docs/yaml`) and the rendered
 * reference (`/docs`, docs/spec.md §4), issue 50: none of it costs more than one precomputed buffer per request.
 * Each body is serialized once and gzipped once, when first asked for (per process for the UI's files, per app for the document), so a
 * request costs no serialization, and every connection sending it shares that one buffer (4,096 clients that
 * never read once held a copy each: 557 → 1,346 MB). Every request takes a token from the client address's
 * anonymous bucket (HUSH_ANONYMOUS_RATE_LIMIT): 429 once it is empty.
 */
export async function apiReference(app: FastifyInstance, { limitAnonymous }: { limitAnonymous: AnonymousLimiter }): Promise<void> {
  let documents: Promise<Map<string, Asset>> | null = null;
  const openapi = (): Promise<Map<string, Asset>> => {
    documents ??= (async () => {
      const json = asset(Buffer.from(JSON.stringify(app.swagger())), 'application/json; charset=utf-8');
      const yaml = asset(Buffer.from(app.swagger({ yaml: true })), 'application/x-yaml');
      return new Map([
        ['/transfer/v1/openapi.json', json],
        ['/docs/json', json],
        ['/docs/yaml', yaml],
      ]);
    })();
    return documents;
  };
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const limited = await takeAnonymousToken(limitAnonymous, request, reply);
      if (limited) throw limited;
      const path = request.url.split('?')[0]!;
      const found = path.startsWith('/docs/static/') ? (await swaggerUiAssets()).get(path) : (await openapi()).get(path);
      if (found) return await send(request, reply, found);
    });
    // Answered by the hook above; the route makes the path exist.
    scope.get('/transfer/v1/openapi.json', { schema: { hide: true } }, async (request, reply) => send(request, reply, (await openapi()).get('/transfer/v1/openapi.json')!));
    // The page's title is what a browser tab and a bookmark show: the API's name, not the renderer's.
    await scope.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, theme: { title: 'Hush API reference' } });
  });
}
