/**
 * Webhook receivers a simulated Hush's own dispatcher reaches, in this process and on its clock: its deliveries
 * go through the real claim, body, signatures, `postWebhook` and node's HTTP client, and arrive at a node HTTP
 * server over an in-memory connection instead of a TCP socket. A socket's answer would arrive outside the
 * simulated clock (test/support/sim-webhooks.ts); a connection in memory is answered within the settle loop,
 * so an answer, a receiver that never answers and the dispatcher's timeout all happen at simulated instants
 * the seed decides.
 *
 * The connections are the process's webhook egress's own (`webhookEgressFor(config)`, one per configuration:
 * the one its dispatcher sends through). Its URL rules still apply as an operator's Hush applies them (https
 * to a name, beside a chain reached by URL); what a name resolves to is not asked, as no socket is opened.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { duplexPair, type Duplex } from 'node:stream';
import { webhookEgressFor } from '../../src/webhooks/webhook-egress.ts';
import type { SimHush } from './sim-hush.ts';

/** node's HTTP client and server tune their socket through these; a connection in memory has nothing to tune. */
function socketLike(d: Duplex): Duplex {
  const self = () => d;
  return Object.assign(d, { setKeepAlive: self, setNoDelay: self, setTimeout: self, ref: self, unref: self });
}

/**
 * Every webhook delivery of `h` reaches `handler`, each request with its body read; with `host`, only deliveries
 * to that name (any other fails as a name that does not resolve). A request the handler never answers stays open
 * until the dispatcher gives up on it: its response's `close` then fires. `close()` gives the egress back its own
 * connections.
 */
export function receiveWebhooks(h: SimHush, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void, opts: { host?: string } = {}): { close(): void } {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => handler(req, res, body));
  });
  const agent = webhookEgressFor(h.config).agents.https as unknown as { createConnection: Connect };
  agent.createConnection = (options, cb) => {
    const host = options.hostname ?? options.host;
    if (opts.host !== undefined && host !== opts.host) {
      cb?.(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), undefined as never);
      return undefined;
    }
    const [client, served] = duplexPair();
    // A pipe's end closed (the dispatcher's timeout aborts its request) does not close the other end; a socket's does.
    client.once('close', () => served.destroy());
    served.once('close', () => client.destroy());
    server.emit('connection', socketLike(served));
    return socketLike(client);
  };
  return {
    close: () => {
      delete (agent as Partial<typeof agent>).createConnection; // the prototype's again
      server.closeAllConnections();
    },
  };
}

type Connect = (options: { host?: string | null; hostname?: string | null }, cb?: (err: Error | null, stream: Duplex) => void) => Duplex | null | undefined;
