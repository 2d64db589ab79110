import { createServer, connect, type Server, type Socket } from 'node:net';

/** What the proxy does with connections: pass them on, hold them open without a byte back, or close them. */
export type ProxyMode = 'forward' | 'swallow' | 'refuse';

/** A TCP proxy in front of a real dependency (chain, PostgreSQL) that a test switches to fail it. */
export class TcpProxy {
  private mode: ProxyMode = 'forward';
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy & { port: number; url: string }> {
    let self!: TcpProxy;
    const server = createServer((client) => {
      client.on('error', () => {});
      if (self.mode === 'refuse') return client.destroy();
      self.track(client);
      if (self.mode === 'swallow') return client.resume(); // read and drop: accepted, never answered
      const upstream = connect(target.port, target.host);
      self.track(upstream);
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    self = new TcpProxy(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return Object.assign(self, { port, url: `http://127.0.0.1:${port}` });
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  /** Cuts the open connections so the next requests meet the new mode (and clients see the cut). */
  async set(mode: ProxyMode): Promise<void> {
    this.mode = mode;
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
  }

  async close(): Promise<void> {
    await this.set('refuse');
    await new Promise((r) => this.server.close(r));
  }
}
