/**
 * A JSON-RPC proxy for tests and benches, in front of a real chain: counts HTTP requests and calls by
 * method (each call of a batch counts) and injects the faults a real provider shows — HTTP 503, 429 with
 * Retry-After, a stall before forwarding, an answer dropped after the call was forwarded (so it
 * executed), and a connection cut before forwarding (the call never ran; the client cannot tell which).
 * It can also enforce a provider's request budget (per method and in all, per window) with 429s. Lives
 * beside the local chain so tests and benches share it without benches importing test/.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export type FaultKind = '503' | '429' | 'stall' | 'drop' | 'cut';

export interface FaultPlan {
  kind: FaultKind;
  /** Share of matching requests that get the fault (default 1 = all). */
  probability?: number;
  /** Only requests that contain one of these methods (default: every request). */
  methods?: readonly string[];
  /** For 'stall': how long to wait before forwarding. */
  stallMs?: number;
  /** For '429' (and the budget): the Retry-After sent, in seconds (default 1; negative: none sent). */
  retryAfterS?: number;
  /** Applies to this many matching requests, then no more (default: no end). */
  times?: number;
}

/** A provider's budget: at most `perMethod` calls of one method and `total` calls in all per window; over it, 429. */
export interface BudgetPlan {
  windowMs: number;
  perMethod: number;
  total: number;
  retryAfterS?: number;
}

export interface RpcFaultProxy {
  url: string;
  /** Calls forwarded (or refused) by method, since start or the last reset(). */
  counts: Map<string, number>;
  /** Answers given by outcome: ok, 503, 429, stall, drop, cut. */
  outcomes: Map<string, number>;
  /** Calls in all (each call of a batch counts). */
  total(): number;
  /** HTTP requests (a batch is one), since start or the last reset(). */
  httpRequests(): number;
  reset(): void;
  setFaults(plans: FaultPlan[]): void;
  setBudget(budget: BudgetPlan | null): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function methodsOf(raw: Buffer): string[] {
  try {
    const body = JSON.parse(raw.toString('utf8')) as { method?: unknown } | { method?: unknown }[];
    return (Array.isArray(body) ? body : [body]).map((c) => (typeof c?.method === 'string' ? c.method : '?'));
  } catch {
    return ['?'];
  }
}

/** `clock`: the budget's windows and the stalls; `random`: which requests a fault with a probability hits. */
export async function startRpcFaultProxy(target: string, clock: Clock, random: Random): Promise<RpcFaultProxy> {
  const to = new URL(target);
  const counts = new Map<string, number>();
  const outcomes = new Map<string, number>();
  let posts = 0;
  // Upstream connections kept alive: a fresh TCP connection per call would add its setup to every call measured.
  const agent = new Agent({ keepAlive: true });
  let faults: FaultPlan[] = [];
  let budget: BudgetPlan | null = null;
  /** Times of the calls let through in the budget's window, by method and in all (sliding log). */
  const seen = new Map<string, number[]>();
  const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

  const overBudget = (methods: string[]): boolean => {
    if (!budget) return false;
    const now = clock.now();
    const recent = (k: string) => {
      const list = (seen.get(k) ?? []).filter((t) => now - t < budget!.windowMs);
      seen.set(k, list);
      return list;
    };
    const per = new Map<string, number>();
    for (const m of methods) per.set(m, (per.get(m) ?? 0) + 1);
    if (recent('*').length + methods.length > budget.total) return true;
    for (const [m, n] of per) if (recent(m).length + n > budget.perMethod) return true;
    for (const m of methods) (seen.get(m)!.push(now), seen.get('*')!.push(now));
    return false;
  };

  const forward = (raw: Buffer, req: IncomingMessage, res: ServerResponse, drop: boolean, retried = false) => {
    const { connection: _connection, ...headers } = req.headers;
    const upstream = request({ host: to.hostname, port: to.port, method: 'POST', path: req.url, agent, headers: { ...headers, host: to.host } }, (up) => {
      if (drop) {
        // The call reached the chain and ran; the answer never reaches the client.
        up.resume();
        up.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      // A kept-alive socket the chain closed as it was reused (Node's documented race, `request.reusedSocket`):
      // the call never reached the chain, so it is sent once more rather than shown to the client as a cut
      // the test did not plan (a reconcile's read failed so on a loaded machine).
      if (upstream.reusedSocket && !retried && !res.headersSent && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
        forward(raw, req, res, drop, true);
        return;
      }
      res.destroy();
    });
    upstream.end(raw);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const methods = methodsOf(raw);
      posts++;
      for (const m of methods) bump(counts, m);
      const fault = faults.find((f) => (f.times ?? 1) > 0 && (!f.methods || methods.some((m) => f.methods!.includes(m))) && random.float() < (f.probability ?? 1));
      if (fault?.times !== undefined) fault.times--;
      if (fault?.kind === 'cut') {
        bump(outcomes, 'cut');
        res.socket?.destroy();
        return;
      }
      if (fault?.kind === '503') {
        bump(outcomes, '503');
        res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
        return;
      }
      if (fault?.kind === '429' || overBudget(methods)) {
        bump(outcomes, '429');
        const retryAfter = fault?.kind === '429' ? (fault.retryAfterS ?? 1) : (budget?.retryAfterS ?? 1);
        res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter >= 0 ? { 'retry-after': String(retryAfter) } : {}) }).end('{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests"},"id":null}');
        return;
      }
      if (fault?.kind === 'stall') {
        bump(outcomes, 'stall');
        await clock.sleep(fault.stallMs ?? 2_000);
        if (res.destroyed) return;
      }
      if (fault?.kind === 'drop') bump(outcomes, 'drop');
      else bump(outcomes, 'ok');
      forward(raw, req, res, fault?.kind === 'drop');
    })();
  });
  // Clients reuse idle connections until a little before the server's Keep-Alive timeout; a loaded machine's
  // late timers can overrun the default 5 s margin, and the client then sends on a socket being closed.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    outcomes,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    httpRequests: () => posts,
    reset() {
      posts = 0;
      counts.clear();
      outcomes.clear();
    },
    setFaults(plans) {
      faults = plans;
    },
    setBudget(b) {
      budget = b;
      seen.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
