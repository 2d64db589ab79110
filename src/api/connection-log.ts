import type { Clock, Timer } from '../support/clock.ts';

/** One log line per listener per window, whatever the number of refusals in it. */
export const LOG_WINDOW_MS = 10_000;
/** Addresses named in one log line (those refused per address first). */
const LOGGED_ADDRESSES = 5;

export type RefusalReason = 'per_address' | 'total';
/** Why a connection was closed by the guard: slow to ask or send its body, idle, not reading its answer, or past the write timeout. */
export type ClosedReason = 'unfinished' | 'idle' | 'unread' | 'write_timeout';
export const CLOSED_REASONS: readonly ClosedReason[] = ['unfinished', 'idle', 'unread', 'write_timeout'];

interface Summary {
  refused: Record<RefusalReason, number>;
  /** Refused connections that could not even be answered (the process near its descriptor limit). */
  reset: number;
  closedEarly: Record<ClosedReason, number>;
  addresses: Set<string>;
}

export interface SummaryLogOptions {
  listener: string;
  maxTotal: number;
  maxPerAddress: number;
  warn: (fields: Record<string, unknown>, msg: string) => void;
}

/** Counts what a window saw and writes one line for it: the first refusal or close at once, the rest at the window's end. */
export function summaryLog(opts: SummaryLogOptions, openNow: () => number, clock: Clock) {
  let pending: Summary | null = null;
  let timer: Timer | null = null;

  const flush = (): void => {
    if (!pending) return;
    const { refused, reset, closedEarly, addresses } = pending;
    pending = null;
    const r = refused.per_address + refused.total;
    const c = CLOSED_REASONS.reduce((n, k) => n + closedEarly[k], 0);
    opts.warn(
      { listener: opts.listener, refused, reset, closedEarly, open: openNow(), maxTotal: opts.maxTotal, maxPerAddress: opts.maxPerAddress, addresses: [...addresses] },
      `${opts.listener} listener: ${r} connection(s) refused (per address ${refused.per_address}, at the total cap ${refused.total}), ${reset} of them reset unanswered, and ${c} closed early (unfinished ${closedEarly.unfinished}, idle ${closedEarly.idle}, unread ${closedEarly.unread}, write timeout ${closedEarly.write_timeout}); ${openNow()} of ${opts.maxTotal} open`,
    );
  };
  const tick = (): void => {
    timer = null;
    if (!pending) return;
    flush();
    timer = clock.after(LOG_WINDOW_MS, tick);
  };
  const note = (): Summary => {
    pending ??= { refused: { per_address: 0, total: 0 }, reset: 0, closedEarly: { unfinished: 0, idle: 0, unread: 0, write_timeout: 0 }, addresses: new Set() };
    return pending;
  };
  const started = (): void => {
    if (timer) return;
    // Quiet until now: say so at once, then at most once a window.
    flush();
    timer = clock.after(LOG_WINDOW_MS, tick);
  };
  return {
    refused(reason: RefusalReason, key: string | null, reset: boolean): void {
      const s = note();
      s.refused[reason]++;
      if (reset) s.reset++;
      if (key !== null && s.addresses.size < LOGGED_ADDRESSES) s.addresses.add(key);
      started();
    },
    closedEarly(reason: ClosedReason): void {
      note().closedEarly[reason]++;
      started();
    },
    stop(): void {
      timer?.cancel();
      timer = null;
      flush();
    },
  };
}
