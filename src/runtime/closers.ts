import type { FastifyInstance } from 'fastify';
import type { Clock } from '../support/clock.ts';

/** How a close runs: after a failed start, servers are cut at once, nothing waits on a drain, and errors are not news. */
export interface CloseHow {
  failedStart: boolean;
}

export type Closer = (how: CloseHow) => unknown;

/**
 * The one list of what a running Hush must close. Each builder registers what it started. Closing runs the
 * servers' handlers first (the requests they drain still use everything else), then all others; each group in
 * reverse order of registration, so nothing closes before what was built on it.
 */
export class Closers {
  private readonly serving: Closer[] = [];
  private readonly rest: Closer[] = [];

  add(close: Closer): void {
    this.rest.push(close);
  }

  /** A server's handler (drain, listeners, readiness): closed before everything registered with add. */
  addServing(close: Closer): void {
    this.serving.push(close);
  }

  async closeAll(how: CloseHow = { failedStart: false }): Promise<void> {
    for (const close of [...this.serving].reverse().concat([...this.rest].reverse())) {
      if (how.failedStart) await Promise.resolve().then(() => close(how)).catch(() => {});
      else await close(how);
    }
  }
}

/**
 * Closes a server, waiting for requests in progress for at most `ms`, then cutting the connections left.
 * Node stops enforcing request deadlines once closing starts, so a request still trickling in would hold
 * the close (and the whole shutdown after it) forever.
 */
export async function closeWithin(clock: Pick<Clock, 'after'>, app: FastifyInstance, ms: number): Promise<void> {
  const closing = app.close();
  let timer: { cancel(): void } | undefined;
  const late = await Promise.race([closing.then(() => false), new Promise<boolean>((r) => (timer = clock.after(ms, () => r(true))))]);
  timer?.cancel();
  if (late) app.server.closeAllConnections();
  await closing;
}
