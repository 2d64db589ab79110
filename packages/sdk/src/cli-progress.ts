import type { HushClient, WaitProgress } from './client.ts';
import { heldFor, statusDetail } from './status-detail.ts';
import type { StatusRecord } from './types.ts';

/**
 * One line rewritten in place on a terminal (a spinner beside the latest state), plain lines otherwise
 * (logs, pipes, CI). Hand-written: a dozen lines, not worth a dependency.
 */
function terminal(out: NodeJS.WriteStream) {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let text = '';
  let frame = 0;
  const timer = out.isTTY ? setInterval(() => out.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text}`), 100) : undefined;
  timer?.unref();
  return {
    tty: Boolean(out.isTTY),
    line(s: string) {
      if (out.isTTY) out.write(`\r\x1b[2K${s}\n`);
      else out.write(`${s}\n`);
    },
    spin(s: string) {
      text = s;
    },
    stop() {
      if (timer) clearInterval(timer);
      if (out.isTTY) out.write('\r\x1b[2K');
    },
  };
}

export function describe(s: StatusRecord): string {
  const detail = statusDetail(s);
  return `${s.trackingId} ${s.status}${detail ? ` ${detail}` : ''}`;
}

/** How long a log (not a terminal) may stay silent while nothing changes: ten polls, 5 s to 30 s. */
export const quietMs = (intervalMs: number) => Math.min(30_000, Math.max(5_000, 10 * intervalMs));

/**
 * Waits for the order's final status, printing each change with what it means (held for privacy until
 * when; released with how large a set), and while nothing changes a "still …" line every quietMs on a
 * log, a live countdown on a terminal. Rides on waitForFinal's polls: it never polls more.
 */
export async function watchOrder(client: HushClient, trackingId: string, intervalMs: number, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const p = terminal(out);
  let lastLine = Date.now();
  const print = (s: string) => {
    p.line(`${new Date().toISOString()} ${s}`);
    lastLine = Date.now();
  };
  const onProgress = (w: WaitProgress) => {
    const s = w.order;
    const waiting = w.held ? heldFor(w.held.releaseBy) : `${Math.round(w.elapsedMs / 1000)} s so far`;
    p.spin(`${s.trackingId} ${s.status}… ${waiting}`);
    if (w.changed) return print(describe(s));
    if (!p.tty && Date.now() - lastLine >= quietMs(intervalMs)) print(`${s.trackingId} ${s.status}, still: ${waiting}`);
  };
  try {
    const final = await client.waitForFinal(trackingId, { intervalMs, onProgress });
    return final.status === 'completed' ? 0 : 3;
  } finally {
    p.stop();
  }
}
