import Fastify, { type FastifyInstance } from 'fastify';
import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import type { LocalChain } from './local-chain.ts';
import { methods } from './rpc-methods.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError } from './rpc-params.ts';

/** The body limit of the Agave RPC service (MAX_REQUEST_BODY_SIZE). */
const RPC_BODY_LIMIT = 50 * 1024;
const MAX_BATCH = 1024;

type Id = string | number | bigint | null;

const BIG_MARK = '__hush_bigint__';

/**
 * JSON with u64 values as plain JSON numbers, exact: bigints that fit a double exactly go out as numbers,
 * larger ones through a marker that is turned back into digits (kit's regex-based writer scans everything).
 */
export function toJson(payload: unknown): string {
  let big = false;
  const text = JSON.stringify(payload, (_k, v) => {
    if (typeof v !== 'bigint') return v;
    if (v <= 9007199254740991n && v >= -9007199254740991n) return Number(v);
    big = true;
    return `${BIG_MARK}${v}`;
  });
  return big ? text.replace(new RegExp(`"${BIG_MARK}(-?\\d+)"`, 'g'), '$1') : text;
}

function errorResponse(id: Id, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

function isValidId(id: unknown): id is Id {
  return id === null || typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint';
}

/** Handles one JSON-RPC request object; returns null for a notification (no id). */
async function handleOne(chain: LocalChain, req: unknown, log: (e: unknown) => void): Promise<unknown> {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return errorResponse(null, INVALID_REQUEST, 'Invalid request');
  const r = req as Record<string, unknown>;
  const id = isValidId(r.id) ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (r.id !== undefined && !isValidId(r.id))) {
    return errorResponse(id, INVALID_REQUEST, 'Invalid request');
  }
  const params = r.params === undefined || r.params === null ? [] : r.params;
  const method = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
  let response;
  if (!method) response = errorResponse(id, METHOD_NOT_FOUND, 'Method not found');
  else if (!Array.isArray(params)) response = errorResponse(id, -32602, 'Invalid params: expected an array of parameters');
  else {
    try {
      response = { jsonrpc: '2.0', result: await method(chain, params), id };
    } catch (e) {
      if (e instanceof RpcError) response = errorResponse(id, e.code, e.message, e.data);
      else {
        log(e);
        response = errorResponse(id, INTERNAL_ERROR, 'Internal error');
      }
    }
  }
  return r.id === undefined ? null : response;
}

/** A standard Solana JSON-RPC 2.0 endpoint (single and batch requests) over the local chain. */
export function buildRpcServer(chain: LocalChain, opts: { logger?: boolean } = {}): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: RPC_BODY_LIMIT, return503OnClosing: true });
  app.removeAllContentTypeParsers();
  // Any content type is read as text: the JSON-RPC layer, not HTTP, reports parse errors.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: RPC_BODY_LIMIT }, (_req, body, done) => done(null, body));

  const send = (reply: import('fastify').FastifyReply, status: number, payload: unknown) =>
    reply.code(status).type('application/json; charset=utf-8').send(toJson(payload));

  app.setErrorHandler((err, _req, reply) => {
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    if (status === 413) return send(reply, 413, errorResponse(null, INVALID_REQUEST, `Request body exceeds ${RPC_BODY_LIMIT} bytes`));
    if (status < 500) return send(reply, status, errorResponse(null, INVALID_REQUEST, 'Invalid request'));
    app.log.error(err);
    return send(reply, 500, errorResponse(null, INTERNAL_ERROR, 'Internal error'));
  });
  app.setNotFoundHandler((_req, reply) => send(reply, 404, errorResponse(null, METHOD_NOT_FOUND, 'Not found: POST JSON-RPC requests to /')));

  // CORS as a local validator answers it: any origin may call, and a browser's preflight is answered.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('access-control-allow-origin', '*');
    if (request.method !== 'OPTIONS') return;
    const asked = request.headers['access-control-request-headers'];
    return reply
      .code(204)
      .header('access-control-allow-methods', 'POST, GET, OPTIONS')
      .header('access-control-allow-headers', typeof asked === 'string' && asked.length > 0 ? asked : 'content-type')
      .header('access-control-max-age', '86400')
      .send();
  });

  app.get('/health', async (_req, reply) => reply.type('text/plain').send('ok'));

  app.post('/', async (request, reply) => {
    const text = typeof request.body === 'string' ? request.body : '';
    let body: unknown;
    try {
      // Integers below 10^15 survive JSON.parse exactly; only bodies with longer digit runs need the bigint parser.
      body = /\d{16}/.test(text) ? parseJsonWithBigInts(text) : JSON.parse(text);
    } catch {
      return send(reply, 200, errorResponse(null, PARSE_ERROR, 'Parse error'));
    }
    const log = (e: unknown) => request.log.error(e);
    if (Array.isArray(body)) {
      if (body.length === 0) return send(reply, 200, errorResponse(null, INVALID_REQUEST, 'Invalid request'));
      if (body.length > MAX_BATCH) return send(reply, 200, errorResponse(null, INVALID_REQUEST, `Batch too large; max ${MAX_BATCH}`));
      const out = [];
      for (const r of body) {
        const res = await handleOne(chain, r, log);
        if (res !== null) out.push(res);
      }
      return out.length === 0 ? reply.code(200).send('') : send(reply, 200, out);
    }
    const res = await handleOne(chain, body, log);
    return res === null ? reply.code(200).send('') : send(reply, 200, res);
  });
  return app;
}
