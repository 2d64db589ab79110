/**
 * bench:attack's clients, all on loopback (127.0.0.0/8 is this machine: a socket bound to 127.0.x.y is another
 * client address; no other address is ever used): sockets that ask and never read, timed keyed requests from
 * chosen addresses, and the server process's RSS.
 */
import { readFileSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { connect, type Socket } from 'node:net';

/** One HTTP exchange from `source`, on a connection of its own: status, Retry-After, ms, or the error (a reset). */
export interface Exchange {
  status: number;
  retryAfter: string | null;
  ms: number;
  error: string | null;
  body: string;
}

/** With `agent` (keep-alive, its own localAddress), connections are reused as a partner's HTTP client pool does. */
export function exchange(url: string, source: string, init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; agent?: Agent } = {}): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers = { ...(init.body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(init.body)) } : {}), ...init.headers };
    const req = request(url, { method: init.method ?? 'GET', headers, localAddress: source, agent: init.agent ?? false, timeout: init.timeoutMs ?? 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, ms: performance.now() - started, error: null, body }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, retryAfter: null, ms: performance.now() - started, error: e.code ?? e.message, body }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, retryAfter: null, ms: performance.now() - started, error: e.code ?? e.message, body: '' }));
    req.end(init.body);
  });
}

/**
 * Sockets from `addresses` (each up to `perAddress` believed open) that never read: two in three ask for `paths`
 * (pipelined, no Accept-Encoding), one in three sends headers it never finishes. A paused socket never notices
 * the server closing it, so the attacker cannot know which still hold: it keeps opening, retiring its own oldest.
 */
export function neverReaders(port: number, addresses: string[], perAddress: number, paths: string[]) {
  const open = new Map<string, Socket[]>();
  let opened = 0;
  let failed = 0;
  let n = 0;
  const head = paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: hush\r\n\r\n`).join('');
  const unfinished = `GET ${paths[0]} HTTP/1.1\r\nHost: hush\r\nX-Slow: `;
  const one = (source: string): Promise<void> =>
    new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port, localAddress: source });
      const ask = n++ % 3 === 2 ? unfinished : head;
      s.pause();
      s.on('error', () => {});
      s.once('connect', () => (opened++, s.write(ask), resolve()));
      s.once('close', () => resolve());
      s.once('error', () => (failed++, resolve()));
      const list = open.get(source) ?? [];
      list.push(s);
      open.set(source, list);
    });
  return {
    async fill(): Promise<void> {
      // In waves of a few hundred: a single burst of thousands of SYNs overflows the listen backlog.
      const all = addresses.flatMap((a) => Array.from({ length: perAddress }, () => a));
      for (let i = 0; i < all.length; i += 256) await Promise.all(all.slice(i, i + 256).map(one));
    },
    /** Retires the oldest `n` (spread over the addresses) and opens as many. */
    async refresh(n: number): Promise<void> {
      const each = Math.max(1, Math.round(n / addresses.length));
      await Promise.all(
        addresses.map(async (a) => {
          const list = open.get(a) ?? [];
          for (const s of list.splice(0, each)) s.destroy();
          await Promise.all(Array.from({ length: each }, () => one(a)));
        }),
      );
    },
    stop(): void {
      for (const list of open.values()) for (const s of list) s.destroy();
      open.clear();
    },
    get opened() {
      return opened;
    },
    get failed() {
      return failed;
    },
  };
}

/** The resident set of a process (Linux), in MB. */
export function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A counter's value from Prometheus text, summed over the series whose labels include `labels`. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
