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
  const ticks = statTicks(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`);
  return ticks === null ? null : ticks.own * 10; // clock ticks of 10 ms (USER_HZ 100)
}

/** A /proc stat file's user + system ticks (`own`) and its reaped children's (`children`); null when unreadable. */
function statTicks(path: string): { comm: string; own: number; children: number } | null {
  let stat: string;
  try {
    stat = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(') ');
  const f = stat.slice(close + 2).split(' ');
  return { comm: stat.slice(stat.indexOf('(') + 1, close), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
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
    const t = statTicks(`/proc/${pid}/stat`); // null: exited meanwhile
    if (t?.comm !== 'postgres') continue;
    found = true;
    ticks += t.own + t.children;
  }
  return found ? ticks * 10 : null;
}
