import type { HushClient, WaitProgress } from './client.ts';
import { heldFor, statusDetail } from './status-detail.ts';
import type { StatusRecord } from './types.ts';

/** Where the CLI writes: a process's stdout or stderr, or a test's capture. */
export interface CliStream {
  write(chunk: string): unknown;
  /** A terminal: one line rewritten in place; otherwise plain lines. */
  isTTY?: boolean;
}

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * One line rewritten in place on a terminal (a spinner beside the latest state), plain lines otherwise
 * (logs, pipes, CI). Hand-written: a dozen lines, not worth a dependency. The spinner turns on `sleep`, the
 * CLI's one way to wait, so a test's clock drives it as it drives the polls.
 */
function terminal(out: CliStream, sleep: Sleep) {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let text = '';
  let frame = 0;
  const stopped = new AbortController();
  const spinning = out.isTTY
    ? (async () => {
        for (;;) {
          await sleep(100, stopped.signal).catch(() => {});
          if (stopped.signal.aborted) return;
          out.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text}`);
        }
      })()
    : Promise.resolve();
  return {
    tty: Boolean(out.isTTY),
    line(s: string) {
      if (out.isTTY) out.write(`\r\x1b[2K${s}\n`);
      else out.write(`${s}\n`);
    },
    spin(s: string) {
      text = s;
    },
    async stop() {
      stopped.abort();
      await spinning;
      if (out.isTTY) out.write('\r\x1b[2K');
    },
  };
}

export function describe(s: StatusRecord, now: number): string {
  const detail = statusDetail(s, now);
  return `${s.trackingId} ${s.status}${detail ? ` ${detail}` : ''}`;
}

/** How long a log (not a terminal) may stay silent while nothing changes: ten polls, 5 s to 30 s. */
export const quietMs = (intervalMs: number) => Math.min(30_000, Math.max(5_000, 10 * intervalMs));

export interface WatchOptions {
  intervalMs: number;
  out: CliStream;
  /** The client's own wait and time (HushClientOptions.sleep / now): the spinner and the lines' times. */
  sleep: Sleep;
  now: () => number;
}

/**
 * Waits for the order's final status, printing each change with what it means (held for privacy until
 * when; released with how large a set), and while nothing changes a "still …" line every quietMs on a
 * log, a live countdown on a terminal. Rides on waitForFinal's polls: it never polls more.
 */
export async function watchOrder(client: HushClient, trackingId: string, o: WatchOptions): Promise<number> {
  const p = terminal(o.out, o.sleep);
  let lastLine = o.now();
  const print = (s: string) => {
    p.line(`${new Date(o.now()).toISOString()} ${s}`);
    lastLine = o.now();
  };
  const onProgress = (w: WaitProgress) => {
    const s = w.order;
    const waiting = w.held ? heldFor(w.held.releaseBy, o.now()) : `${Math.round(w.elapsedMs / 1000)} s so far`;
    p.spin(`${s.trackingId} ${s.status}… ${waiting}`);
    if (w.changed) return print(describe(s, o.now()));
    if (!p.tty && o.now() - lastLine >= quietMs(o.intervalMs)) print(`${s.trackingId} ${s.status}, still: ${waiting}`);
  };
  try {
    const final = await client.waitForFinal(trackingId, { intervalMs: o.intervalMs, onProgress });
    return final.status === 'completed' ? 0 : 3;
  } finally {
    await p.stop();
  }
}
