/**
 * bench:api's closed-loop order run: one autocannon run on 100 connections, the first `warmup` answers
 * warming up, the next `count` measured, with the CPU each measured order cost: the API process, its
 * event-loop thread, the whole machine and, on PostgreSQL, the database server.
 */
import autocannon from 'autocannon';
import { databaseServerCpuMs, machineBusyMs, processCpuMs } from './cpu-time.ts';
import type { Run } from './http-load.ts';

export interface OrderRunOptions {
  pid: number | undefined;
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  warmup: number;
  count: number;
  /** Also read a local PostgreSQL server's CPU (the engine under test is PostgreSQL). */
  databaseServer: boolean;
}

export interface OrderRun {
  result: Run;
  machineAtStart: number | null;
  machineAtEnd: number | null;
  measured: number;
}

/** CPU readings at one instant (ms; null where /proc cannot say). */
function readings(pid: number | undefined, databaseServer: boolean) {
  return { process: processCpuMs(pid), loop: processCpuMs(pid, pid), machine: machineBusyMs(), database: databaseServer ? databaseServerCpuMs() : null };
}
type Readings = ReturnType<typeof readings>;

/**
 * The same 100 connections warm up and then are measured. Fresh connections would put connection setup
 * into the measured tail (a new connection's first request sometimes waited up to ~1.5 s on this machine,
 * in the generator and the kernel, before Hush saw it: 100 of 6,000 requests, so the p99 was theirs).
 */
export async function orderRun(o: OrderRunOptions): Promise<OrderRun> {
  let next = 0;
  const latencies: number[] = [];
  let measured2xx = 0;
  let answered = 0;
  let startedAt = 0;
  let lastAt = 0;
  let atStart: Readings | null = null;
  let atEnd: Readings | null = null;
  const url = new URL(o.url);
  const run = autocannon({
    url: url.origin,
    connections: 100,
    amount: o.warmup + o.count,
    requests: [{ method: 'POST', path: url.pathname, headers: o.headers, setupRequest: (req) => ({ ...req, body: o.bodies[next++] }) }],
  }) as Promise<autocannon.Result> & autocannon.Instance; // the promise form is also the instance that emits events
  run.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
    if (++answered === o.warmup) {
      startedAt = performance.now();
      atStart = readings(o.pid, o.databaseServer);
    } else if (answered > o.warmup) {
      latencies.push(ms);
      if (statusCode >= 200 && statusCode < 300) measured2xx++;
      lastAt = performance.now();
      if (answered === o.warmup + o.count) atEnd = readings(o.pid, o.databaseServer);
    }
  });
  await run;
  // A run whose last requests got no answer event (a timeout) still has its CPU figures, over what was answered.
  if (atStart && !atEnd) atEnd = readings(o.pid, o.databaseServer);
  // Up to the last answer: autocannon resolves a fixed-size run only at its next 1 s sample tick.
  const seconds = (lastAt - startedAt) / 1000;
  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  const perOrder = (f: (r: Readings) => number | null): number | undefined => {
    const [a, b] = [atStart && f(atStart), atEnd && f(atEnd)];
    return a === null || b === null || latencies.length === 0 ? undefined : ((b - a) * 1000) / latencies.length;
  };
  const cpuUs = perOrder((r) => r.process);
  const loopCpuUs = perOrder((r) => r.loop);
  const databaseCpuUs = perOrder((r) => r.database);
  const result: Run = {
    rps: measured2xx / seconds,
    p50: at(0.5),
    p99: at(0.99),
    errors: latencies.length - measured2xx,
    ...(cpuUs === undefined ? {} : { cpuUs }),
    ...(loopCpuUs === undefined ? {} : { loopCpuUs }),
    ...(databaseCpuUs === undefined ? {} : { databaseCpuUs }),
  };
  return { result, machineAtStart: atStart ? (atStart as Readings).machine : null, machineAtEnd: atEnd ? (atEnd as Readings).machine : null, measured: latencies.length };
}
