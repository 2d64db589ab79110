/**
 * What a bench's latency costs in RPC requests: a counting proxy (bench/support/rpc-proxy-server.ts, its
 * own process) between Hush and the chain, read as snapshots. A real provider rate-limits and bills every
 * call (a public endpoint: 100 per 10 s per IP, 40 per method), so every latency figure is printed next to
 * calls per order and per idle second.
 */
import { start, stop, waitLine } from './processes.ts';

export interface RpcCounts {
  /** Calls by method (each call of a JSON-RPC batch counts). */
  calls: Record<string, number>;
  /** HTTP requests (a batch is one). */
  httpRequests: number;
}

export interface RpcProxy {
  /** Point Hush (or a baseline) here instead of at the chain. */
  url: string;
  counts(): Promise<RpcCounts>;
  stop(): Promise<void>;
}

export async function startRpcProxy(chainUrl: string): Promise<RpcProxy> {
  const child = start('bench/support/rpc-proxy-server.ts', { RPC_TARGET: chainUrl });
  const line = await waitLine(child, (l) => l.startsWith('{'), 'rpc proxy');
  const { url, sideUrl } = JSON.parse(line) as { url: string; sideUrl: string };
  return {
    url,
    counts: async () => (await (await fetch(`${sideUrl}/counts`)).json()) as RpcCounts,
    stop: () => stop(child),
  };
}

/** What happened between two snapshots. */
export function since(after: RpcCounts, before: RpcCounts): RpcCounts {
  const calls: Record<string, number> = {};
  for (const [m, n] of Object.entries(after.calls)) if (n - (before.calls[m] ?? 0) > 0) calls[m] = n - (before.calls[m] ?? 0);
  return { calls, httpRequests: after.httpRequests - before.httpRequests };
}

export const totalCalls = (c: RpcCounts) => Object.values(c.calls).reduce((a, b) => a + b, 0);

/** `12.3 calls per <unit>` and its detail: `8.0 HTTP requests; getSlot 5.1, getMultipleAccounts 3.0, …` (the top methods). */
export function perUnit(c: RpcCounts, units: number, unit: string, top = 4): [string, string] {
  const f = (n: number) => (n / units).toFixed(n / units >= 10 ? 0 : n / units >= 1 ? 1 : 2);
  const methods = Object.entries(c.calls)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([m, n]) => `${m} ${f(n)}`);
  return [`${f(totalCalls(c))} calls per ${unit}`, `${f(c.httpRequests)} HTTP requests per ${unit}${methods.length ? `; ${methods.join(', ')}` : ''}`];
}

/** Calls through the proxy over `seconds` while nothing is in flight. */
export async function idle(proxy: RpcProxy, seconds: number): Promise<{ counts: RpcCounts; seconds: number }> {
  const before = await proxy.counts();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const after = await proxy.counts();
  return { counts: since(after, before), seconds: (performance.now() - t0) / 1000 };
}

/**
 * What the proxy adds to one RPC round trip: `n` getSlot calls straight to the chain and `n` through the
 * proxy, alternated, one at a time. Returns the medians and p99s (ms) of both.
 */
export async function proxyOverhead(chainUrl: string, proxyUrl: string, n = 300): Promise<{ direct: [number, number]; proxied: [number, number] }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'processed' }] });
  const once = async (url: string) => {
    const t = performance.now();
    await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
    return performance.now() - t;
  };
  const direct: number[] = [];
  const proxied: number[] = [];
  for (let i = 0; i < n; i++) {
    direct.push(await once(chainUrl));
    proxied.push(await once(proxyUrl));
  }
  const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * q) - 1)]!;
  return { direct: [at(direct, 0.5), at(direct, 0.99)], proxied: [at(proxied, 0.5), at(proxied, 0.99)] };
}

/** The lines every bench prints: the proxy's own cost, then idle calls per second against the target. */
export function overheadLine(o: Awaited<ReturnType<typeof proxyOverhead>>): string {
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  return `counting RPC proxy adds ${ms(o.proxied[0] - o.direct[0])} per call at p50 (getSlot ${ms(o.direct[0])} direct, ${ms(o.proxied[0])} proxied; p99 ${ms(o.direct[1])} / ${ms(o.proxied[1])})`;
}
