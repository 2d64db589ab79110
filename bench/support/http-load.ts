/** bench:api's HTTP load: autocannon's closed loop, measured finely, an open loop, and what one run reports. */
import http from 'node:http';
import autocannon from 'autocannon';
import { processCpuMs, withCpu } from './cpu-time.ts';
import { pct } from './stats.ts';

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the process under test per request (user + system), µs; absent without /proc. */
  cpuUs?: number;
  /** Of cpuUs, the server's main thread (its event loop) alone. */
  loopCpuUs?: number;
  /** A local PostgreSQL server's CPU per request (its processes, not the process under test). */
  databaseCpuUs?: number;
}

/**
 * One closed-loop autocannon run of 50 connections. Its latency histogram keeps whole milliseconds, which
 * at a few ms a request moves a p99 ratio in steps of 0.5 or more (issue 56: 4 ms against 2 ms read as
 * 2.00); the percentiles here are each 2xx answer's own hrtime duration (autocannon's 'response' event,
 * fractional ms), the answers its histogram records.
 */
export async function closedLoop(pid: number | undefined, seconds: number, opts: autocannon.Options): Promise<Run> {
  return withCpu(pid, async () => {
    const latencies: number[] = [];
    const run = autocannon({ connections: 50, duration: seconds, ...opts }) as Promise<autocannon.Result> & autocannon.Instance;
    run.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
    });
    const r = await run;
    return { rps: r.requests.average, p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), errors: r.non2xx + r.errors + r.timeouts, requests: r.requests.total };
  });
}

/**
 * Orders sent at a steady `rate` over up to 100 keep-alive connections (open loop), after `warmup` orders
 * sent 100 at a time to open and warm the connections. Each latency counts from the moment its request
 * was due, not from when it went out, so a generator falling behind shows as latency (no coordinated
 * omission). autocannon's overallRate cannot do this: it paces each connection alike, so all 100 fire
 * together and every tick is a burst of 100.
 */
export async function pacedOrders(baseUrl: string, headers: Record<string, string>, bodies: string[], warmup: number, rate: number, pid?: number): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
  const { hostname, port } = new URL(baseUrl);
  const post = (body: string) =>
    new Promise<number>((resolve) => {
      const req = http.request({ host: hostname, port, path: '/transfer/v1/order', method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end(body);
    });
  for (let i = 0; i < warmup; i += 100) await Promise.all(bodies.slice(i, Math.min(i + 100, warmup)).map(post));
  const measured = bodies.slice(warmup);
  // The server's CPU over the measured orders, and its event-loop thread's: at a steady rate, the loop's share of
  // one core is how close it runs to saturation, where a tail becomes queueing.
  const cpuAtStart = processCpuMs(pid);
  const loopAtStart = processCpuMs(pid, pid);
  const latencies: number[] = [];
  let ok = 0;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (const [i, body] of measured.entries()) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      post(body).then((status) => {
        latencies.push(performance.now() - due);
        if (status >= 200 && status < 300) ok++;
      }),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  const cpuAtEnd = processCpuMs(pid);
  const loopAtEnd = processCpuMs(pid, pid);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  const perOrder = (a: number | null, b: number | null) => (a === null || b === null || measured.length === 0 ? undefined : ((b - a) * 1000) / measured.length);
  const cpuUs = perOrder(cpuAtStart, cpuAtEnd);
  const loopCpuUs = perOrder(loopAtStart, loopAtEnd);
  return { rps: ok / seconds, p50: at(0.5), p99: at(0.99), errors: measured.length - ok, ...(cpuUs === undefined ? {} : { cpuUs }), ...(loopCpuUs === undefined ? {} : { loopCpuUs }) };
}
