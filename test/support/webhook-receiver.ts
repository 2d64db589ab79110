import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port><path>` (the embedded dev mode lets webhooks reach this machine). */
  url: string;
  /** Every delivery, in arrival order; each answered 204. */
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** A partner's webhook endpoint on 127.0.0.1 that keeps what it is sent and answers 204. */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const close = () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`, received, close };
}
