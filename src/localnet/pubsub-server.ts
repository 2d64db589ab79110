import { WebSocketServer, WebSocket } from 'ws';
import type { LocalChain } from './local-chain.ts';
import { PubSubHub, type PubSubClient } from './pubsub-hub.ts';
import { pubsubMethods } from './pubsub-methods.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError } from './rpc-params.ts';
import { toJson } from './rpc-server.ts';

const MAX_MESSAGE_BYTES = 64 * 1024;
/** A client that does not read its notifications is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const HEARTBEAT_MS = 30_000;

export interface RunningPubSub {
  hub: PubSubHub;
  port: number;
  url: string;
  /** Open sockets (tests check that closed ones are gone). */
  readonly socketCount: number;
  /** Cuts every socket without a close handshake, as a network drop would (tests, operators). */
  dropConnections(): void;
  close(): Promise<void>;
}

type Id = string | number | null;

function errorResponse(id: Id, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

/** One request; null when it needs no answer (a notification, e.g. kit's keep-alive `ping`). */
function handleOne(hub: PubSubHub, client: PubSubClient, req: unknown, log: (e: unknown) => void): unknown {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return errorResponse(null, INVALID_REQUEST, 'Invalid request');
  const r = req as Record<string, unknown>;
  const validId = r.id === null || typeof r.id === 'string' || typeof r.id === 'number';
  const id = validId ? (r.id as Id) : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (r.id !== undefined && !validId)) return errorResponse(id, INVALID_REQUEST, 'Invalid request');
  if (r.id === undefined) return null;
  const method = Object.hasOwn(pubsubMethods, r.method) ? pubsubMethods[r.method] : undefined;
  if (!method) return errorResponse(id, METHOD_NOT_FOUND, 'Method not found');
  const params = r.params === undefined || r.params === null ? [] : r.params;
  if (!Array.isArray(params)) return errorResponse(id, -32602, 'Invalid params: expected an array of parameters');
  try {
    return { jsonrpc: '2.0', result: method(hub, client, params), id };
  } catch (e) {
    if (e instanceof RpcError) return errorResponse(id, e.code, e.message, e.data);
    log(e);
    return errorResponse(id, INTERNAL_ERROR, 'Internal error');
  }
}

/**
 * The Solana PubSub WebSocket API over the local chain (slot, account, signature and logs subscriptions),
 * fed by the chain's observer hooks. Closing a socket drops its subscriptions.
 */
export async function startPubSubServer(
  chain: LocalChain,
  opts: { host: string; port: number; log?: (msg: string) => void },
): Promise<RunningPubSub> {
  const log = opts.log ?? (() => {});
  const hub = new PubSubHub(chain);
  const wss = new WebSocketServer({ host: opts.host, port: opts.port, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false, clientTracking: true });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', (e) => wss.close(() => reject(e)));
  });
  wss.on('error', (e) => log(`localnet pubsub: ${e.message}`));
  const alive = new WeakSet<WebSocket>();

  wss.on('connection', (ws) => {
    alive.add(ws);
    const client: PubSubClient = {
      send(text) {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return void ws.terminate();
        ws.send(text);
      },
    };
    ws.on('pong', () => alive.add(ws));
    ws.on('error', () => {}); // a broken socket ends in 'close', which cleans up
    ws.on('close', () => hub.dropClient(client));
    ws.on('message', (data, isBinary) => {
      let body: unknown;
      try {
        if (isBinary) throw new Error('binary');
        body = JSON.parse(data.toString());
      } catch {
        return client.send(toJson(errorResponse(null, PARSE_ERROR, 'Parse error')));
      }
      const onError = (e: unknown) => log(`localnet pubsub: ${(e as Error).stack ?? String(e)}`);
      if (!Array.isArray(body)) {
        const res = handleOne(hub, client, body, onError);
        if (res !== null) client.send(toJson(res));
        return;
      }
      if (body.length === 0) return client.send(toJson(errorResponse(null, INVALID_REQUEST, 'Invalid request')));
      const out = body.map((r) => handleOne(hub, client, r, onError)).filter((r) => r !== null);
      if (out.length > 0) client.send(toJson(out));
    });
  });

  // Half-open sockets (a peer that vanished without a close frame) would keep their subscriptions forever.
  const heartbeat = chain.clock.every(HEARTBEAT_MS, () => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  });

  chain.observer = hub;
  const address = wss.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  const host = opts.host === '::1' || opts.host === 'localhost' ? '127.0.0.1' : opts.host;
  let closed = false;
  return {
    hub,
    port,
    url: `ws://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get socketCount() {
      return wss.clients.size;
    },
    dropConnections() {
      for (const ws of wss.clients) ws.terminate();
    },
    async close() {
      if (closed) return;
      closed = true;
      heartbeat.cancel();
      if (chain.observer === hub) chain.observer = null;
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
