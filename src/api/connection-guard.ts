import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { ConnectionMetrics } from './metrics.ts';

/** How many connections a listener keeps open (docs/spec.md §7, "Connections"). */
export interface ConnectionLimits {
  /** Open connections in all: at the cap a new one evicts an unfinished or idle one, else it is refused. */
  maxTotal: number;
  /** Open connections per client address (an IPv6 /56 is one); 0: no such cap (the ops listener). */
  maxPerAddress: number;
}

export interface ConnectionGuardOptions extends ConnectionLimits {
  listener: 'partner' | 'ops';
  metrics: ConnectionMetrics;
  /** Connections from these addresses are not counted per address: a trusted proxy carries many clients. */
  exempt?: (address: string) => boolean;
  /** The rate-limited summary of refusals and early closes (the app's logger, at warn). */
  warn: (fields: Record<string, unknown>, msg: string) => void;
}

/** From this share of `maxTotal` on, connections that are slow to ask or idle are closed (pressure). */
export const PRESSURE_SHARE = 0.8;
/** Under pressure: how long a connection may take to send its first request's headers, or sit idle between requests. */
export const PRESSURE_GRACE_MS = 1000;
/** At most one pressure sweep this often: it walks the open connections, and a flood would call it per accept. */
const SWEEP_EVERY_MS = 100;
/** One log line per listener per window, whatever the number of refusals in it. */
export const LOG_WINDOW_MS = 10_000;
/** Addresses named in one log line (those refused per address first). */
const LOGGED_ADDRESSES = 5;

type RefusalReason = 'per_address' | 'total';
type ClosedReason = 'unfinished' | 'idle';

interface Entry {
  /** The per-address key, or null when not counted per address. */
  key: string | null;
  /** When it connected, then when its latest request arrived. */
  since: number;
  /** The latest request's response; null until the first request. Idle: that response is sent. */
  res: ServerResponse | null;
}

interface Summary {
  refused: Record<RefusalReason, number>;
  closedEarly: Record<ClosedReason, number>;
  addresses: Set<string>;
}

/**
 * Bounds a listener's open connections, at the socket, before Node allocates an HTTP parser for it: a
 * client address over `maxPerAddress` is refused at once (destroyed); from PRESSURE_SHARE of `maxTotal`
 * on, connections that have not sent their first request's headers within PRESSURE_GRACE_MS, and
 * keep-alive connections idle that long, are closed; at `maxTotal` a new connection evicts the oldest
 * connection without a request yet (else the longest idle), and is refused only when every connection is
 * serving a request. Connections serving a request are never closed here (the request deadlines bound them).
 */
export function guardConnections(server: Server, opts: ConnectionGuardOptions): void {
  const all = new Map<Socket, Entry>();
  // Insertion order is age: the first entry is the oldest, evicted first.
  const unserved = new Map<Socket, Entry>();
  const perAddress = new Map<string, number>();
  const pressureAt = Math.max(1, Math.floor(opts.maxTotal * PRESSURE_SHARE));
  const open = opts.metrics.open.labels({ listener: opts.listener });
  opts.metrics.limit.set({ listener: opts.listener }, opts.maxTotal);
  open.set(0);
  const refused = { per_address: opts.metrics.refused.labels({ listener: opts.listener, reason: 'per_address' }), total: opts.metrics.refused.labels({ listener: opts.listener, reason: 'total' }) };
  const closedEarly = { unfinished: opts.metrics.closedEarly.labels({ listener: opts.listener, reason: 'unfinished' }), idle: opts.metrics.closedEarly.labels({ listener: opts.listener, reason: 'idle' }) };
  for (const c of [...Object.values(refused), ...Object.values(closedEarly)]) c.inc(0);
  let lastSweep = -Infinity;
  let noIdleUntil = -Infinity;

  const log = summaryLog(opts, () => all.size);

  const release = (socket: Socket): void => {
    const entry = all.get(socket);
    if (!entry) return;
    all.delete(socket);
    unserved.delete(socket);
    open.dec();
    if (entry.key !== null) {
      const n = (perAddress.get(entry.key) ?? 1) - 1;
      if (n > 0) perAddress.set(entry.key, n);
      else perAddress.delete(entry.key);
    }
  };

  const closeEarly = (socket: Socket, reason: ClosedReason): void => {
    release(socket);
    socket.destroy();
    closedEarly[reason].inc();
    log.closedEarly(reason);
  };

  /**
   * Under pressure, at most every SWEEP_EVERY_MS: closes what has been slow to ask, or idle, for longer than
   * the grace (idle: its latest request came that long ago and its answer is sent).
   */
  const sweep = (now: number): void => {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    for (const [socket, entry] of unserved) {
      if (now - entry.since < PRESSURE_GRACE_MS) break;
      closeEarly(socket, 'unfinished');
    }
    // Served connections are not kept in order of idleness (that would cost every request a listener): a walk.
    for (const [socket, entry] of all) {
      if (entry.res?.writableFinished && now - entry.since >= PRESSURE_GRACE_MS) closeEarly(socket, 'idle');
    }
  };

  /** At the cap: room for one more, taken from the oldest connection without a request, else the longest idle. */
  const evictOne = (now: number): boolean => {
    const oldest = unserved.keys().next();
    if (!oldest.done) {
      closeEarly(oldest.value, 'unfinished');
      return true;
    }
    // Every connection has asked: a walk for the longest idle, not repeated within SWEEP_EVERY_MS of finding none.
    if (now < noIdleUntil) return false;
    let idlest: Socket | null = null;
    let since = Infinity;
    for (const [socket, entry] of all) if (entry.res?.writableFinished && entry.since < since) [idlest, since] = [socket, entry.since];
    if (idlest) closeEarly(idlest, 'idle');
    else noIdleUntil = now + SWEEP_EVERY_MS;
    return idlest !== null;
  };

  const admit = (socket: Socket): boolean => {
    const address = socket.remoteAddress;
    if (!address) {
      socket.destroy(); // gone before it was accepted
      return false;
    }
    const key = opts.maxPerAddress > 0 && !opts.exempt?.(address) ? addressKey(address) : null;
    if (key !== null && (perAddress.get(key) ?? 0) >= opts.maxPerAddress) return refuse(socket, 'per_address', key);
    const now = performance.now();
    if (all.size >= pressureAt) sweep(now);
    if (all.size >= opts.maxTotal && !evictOne(now)) return refuse(socket, 'total', key);
    const entry: Entry = { key, since: now, res: null };
    all.set(socket, entry);
    unserved.set(socket, entry);
    if (key !== null) perAddress.set(key, (perAddress.get(key) ?? 0) + 1);
    open.inc();
    socket.once('close', () => release(socket));
    return true;
  };

  const refuse = (socket: Socket, reason: RefusalReason, key: string | null): false => {
    socket.destroy();
    refused[reason].inc();
    log.refused(reason, key);
    return false;
  };

  // Node's own connection listener (the HTTP parser) runs only for admitted sockets.
  const downstream = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) return;
    for (const listener of downstream) listener.call(server, socket);
  });
  // Per request: a lookup and two fields, no listener (a quote's budget is counted in microseconds).
  server.on('request', (req, res) => {
    const entry = all.get(req.socket);
    if (!entry) return;
    if (entry.res === null) unserved.delete(req.socket);
    entry.res = res;
    entry.since = performance.now();
  });
  server.once('close', () => log.stop());
}

/** The per-address key: the address, an IPv6 /56 as one (as the anonymous rate limit counts them). */
function addressKey(address: string): string {
  try {
    return normalizeIP(address, 56);
  } catch {
    return address;
  }
}

/** Counts what a window saw and writes one line for it: the first refusal or close at once, the rest at the window's end. */
function summaryLog(opts: ConnectionGuardOptions, openNow: () => number) {
  let pending: Summary | null = null;
  let timer: NodeJS.Timeout | null = null;

  const flush = (): void => {
    if (!pending) return;
    const { refused, closedEarly, addresses } = pending;
    pending = null;
    const r = refused.per_address + refused.total;
    const c = closedEarly.unfinished + closedEarly.idle;
    opts.warn(
      { listener: opts.listener, refused, closedEarly, open: openNow(), maxTotal: opts.maxTotal, maxPerAddress: opts.maxPerAddress, addresses: [...addresses] },
      `${opts.listener} listener: ${r} connection(s) refused (per address ${refused.per_address}, at the total cap ${refused.total}) and ${c} closed early (unfinished ${closedEarly.unfinished}, idle ${closedEarly.idle}); ${openNow()} of ${opts.maxTotal} open`,
    );
  };
  const tick = (): void => {
    timer = null;
    if (!pending) return;
    flush();
    timer = setTimeout(tick, LOG_WINDOW_MS).unref();
  };
  const note = (): Summary => {
    pending ??= { refused: { per_address: 0, total: 0 }, closedEarly: { unfinished: 0, idle: 0 }, addresses: new Set() };
    return pending;
  };
  const started = (): void => {
    if (timer) return;
    // Quiet until now: say so at once, then at most once a window.
    flush();
    timer = setTimeout(tick, LOG_WINDOW_MS).unref();
  };
  return {
    refused(reason: RefusalReason, key: string | null): void {
      const s = note();
      s.refused[reason]++;
      if (key !== null && s.addresses.size < LOGGED_ADDRESSES) s.addresses.add(key);
      started();
    },
    closedEarly(reason: ClosedReason): void {
      note().closedEarly[reason]++;
      started();
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      flush();
    },
  };
}
