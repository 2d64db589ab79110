import { threadPoolWorkInFlight } from './thread-pool-work.ts';
import type { VirtualClock } from './virtual-clock.ts';

/** What the simulator can see of work in flight: counters that move while anything is being done. */
export interface Activity {
  /** Work started and not yet answered that no timer is waiting on (statements, in-process requests). */
  busy(): number;
  /** A counter that grows with every statement, request or timer set: unchanged over a turn, nothing happened. */
  progress(): number;
  /** What the counters say, for a run that never settles. */
  describe?(): string;
  /** Real work of unknown length the clock waits for (an operator's tool in a process of its own): awaited, not polled. */
  awaited?(): Promise<unknown> | null;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Handles that live as long as the process (and its timers), not work in flight. */
const STANDING = new Set(['Timeout', 'Immediate', 'TTYWrap', 'PipeWrap', 'TCPWrap', 'TCPServerWrap', 'SignalWrap', 'ProcessWrap', 'FSEventWrap', 'StatWatcher', 'MessagePort', 'UDPWrap', 'TCPSocketWrap']);

/**
 * Real I/O in flight (a file read at a process's start, a socket write) and WebCrypto's work on the thread pool
 * (thread-pool-work.ts): the simulated clock must not move while it is, or what it resumes lands at a simulated
 * instant that depends on the machine's speed.
 */
export function realIoInFlight(): number {
  let n = threadPoolWorkInFlight();
  for (const r of process.getActiveResourcesInfo()) if (!STANDING.has(r)) n++;
  return n;
}

/** A run that never settles: something loops without the clock (a bug the simulator reports, not hides). */
export class NeverSettles extends Error {}

/**
 * Waits until everything the last timer started has run as far as it can without the clock moving: every
 * promise chain is resolved or waits on a simulated timer. Microtasks all run before a turn of the event loop
 * ends, so a quiet turn — nothing in flight and no counter moved — is quiescence; two in a row guard against
 * work that hops through `setImmediate`.
 */
export async function settle(activity: Activity, maxTurns = 100_000, maxWaitMs = 300_000): Promise<void> {
  let quiet = 0;
  let last = activity.progress();
  // A turn with real work in flight (a statement on a PostgreSQL socket, a file read) waits for the machine, not for
  // a loop: it counts toward a bound in real time, which a loaded machine may need, not toward the turns.
  const waitUntil = performance.now() + maxWaitMs;
  for (let i = 0; i < maxTurns; ) {
    const awaited = activity.awaited?.();
    if (awaited) {
      await awaited.catch(() => {});
      quiet = 0;
      continue;
    }
    await turn();
    const now = activity.progress();
    const inFlight = activity.busy() + realIoInFlight();
    if (now === last && inFlight === 0) {
      if (++quiet >= 2) return;
    } else quiet = 0;
    if (inFlight === 0 || now !== last) i++;
    else if (performance.now() > waitUntil) break;
    last = now;
  }
  throw new NeverSettles(`still busy after ${maxTurns} turns of the event loop or ${maxWaitMs / 1000} s of real work (${activity.describe?.() ?? ''})`);
}

/** Runs the clock to `until`: each due timer at its instant, and everything it starts settled before the next. */
export async function runUntil(clock: VirtualClock, activity: Activity, until: number, stop?: () => boolean): Promise<void> {
  await settle(activity);
  while (!stop?.() && clock.runNext(until)) await settle(activity);
  if (!stop?.() && clock.now() < until) clock.set(until);
}
