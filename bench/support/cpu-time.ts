/**
 * CPU time from Linux /proc: of the process under test, and of the whole machine (two shared cores: every
 * process's work bounds what a ratio can show).
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * User + system CPU of a process so far, ms (Linux /proc; null elsewhere); with `tid`, of that one thread
 * (the main thread's tid is the pid: a Node process's event loop).
 */
export function processCpuMs(pid: number | undefined, tid?: number): number | null {
  try {
    const fields = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return null;
  }
}

/** Busy CPU time of the whole machine so far (every process, user + system + softirq), ms; null without /proc. */
export function machineBusyMs(): number | null {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait (and steal, not ours).
    const busy = ticks[0]! + ticks[1]! + ticks[2]! + ticks[5]! + ticks[6]!;
    return (busy * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * Runs a load and adds the server's CPU per request: unlike requests/s, it does not depend on how much
 * of the two cores the load generator leaves over, so it shows where a ratio's gap is Hush's own work.
 */
export async function withCpu<T extends { requests: number }>(pid: number | undefined, run: () => Promise<T>): Promise<T & { cpuUs?: number }> {
  const before = processCpuMs(pid);
  const r = await run();
  const after = processCpuMs(pid);
  return before === null || after === null || r.requests === 0 ? r : { ...r, cpuUs: ((after - before) * 1000) / r.requests };
}

/**
 * CPU of a PostgreSQL server on this machine so far, ms: every process named `postgres` (user + system),
 * plus what its exited children used (a backend's CPU moves to the postmaster's children's time when it
 * is reaped). Null when none runs here. What an order costs the database, which PGlite pays in Hush's
 * own process: the two engines' order CPU compare only with it.
 */
export function databaseServerCpuMs(): number | null {
  let ticks = 0;
  let found = false;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue;
    found = true;
    const f = stat.split(') ')[1]!.split(' ');
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return found ? (ticks * 1000) / 100 : null;
}
