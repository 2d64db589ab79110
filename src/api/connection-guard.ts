import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { ConnectionMetrics } from './metrics.ts';
import type { ListenerStatus } from './listener-status.ts';
import { CLOSED_REASONS, summaryLog, type ClosedReason, type RefusalReason } from './connection-log.ts';
import { answerOverCap } from './over-cap-answer.ts';
import { DEFAULT_WRITE_TIMEOUT_MS } from '../config/connection-settings.ts';
import type { Clock } from '../support/clock.ts';
import type { RequestIdOf } from './server-options.ts';

export { LOG_WINDOW_MS } from './connection-log.ts';

/** How many connections a listener keeps open (docs/spec.md §7, "Connections"). */
export interface ConnectionLimits {
  /** Open connections in all: at the cap a new one evicts one that makes no progress, else it is answered 503. */
  maxTotal: number;
  /** Open connections per client address (an IPv6 /56 is one); 0: no such cap (the ops listener). */
  maxPerAddress: number;
  /**
   * Connections over a cap being answered (429/503) at once, beyond the caps: the descriptors the process has
   * left for them (connection-budget.ts). Past it a connection is reset unanswered. Default: 4 × `maxTotal`.
   */
  maxAnswering?: number;
  /** How long a response may take to reach the client once it started (HUSH_WRITE_TIMEOUT_MS); then the connection is closed. */
  writeTimeoutMs?: number;
}

export interface ConnectionGuardOptions extends ConnectionLimits {
  listener: 'partner' | 'ops';
  metrics: ConnectionMetrics;
  /** Connections from these addresses are not counted per address: a trusted proxy carries many clients. */
  exempt?: (address: string) => boolean;
  /** The rate-limited summary of refusals and early closes (the app's logger, at warn). */
  warn: (fields: Record<string, unknown>, msg: string) => void;
  /** Progress and stalls are timed on its monotonic reading; refusals are stamped with its `now`. */
  clock: Clock;
  /** The id an answer over a cap carries (the listener's). */
  requestId: RequestIdOf;
}

/** From this share of `maxTotal` on, connections that make no progress are closed (pressure). */
export const PRESSURE_SHARE = 0.8;
/** Under pressure: how long a connection may go without progress (headers, body, reading its answer, a new request). */
export const PRESSURE_GRACE_MS = 1000;
/** At most one pressure sweep this often: it walks the open connections, and a flood would call it per accept. */
const SWEEP_EVERY_MS = 100;
/** A connection over a cap that sends no request within this is closed (there is nothing to answer). */
export const ANSWER_WAIT_MS = 2000;
/** How often the write timeout is checked (and unread answers' progress sampled). */
const WRITE_CHECK_MS = 500;

interface Entry {
  /** The per-address key, or null when not counted per address. */
  key: string | null;
  /** When it connected, then when its latest request arrived. */
  since: number;
  req: IncomingMessage | null;
  /** The latest request's response; null until the first request. Idle: that response is sent. */
  res: ServerResponse | null;
  /** The output still queued on the socket when last looked at, and when it last went down (the client reads). */
  pending: number;
  progressAt: number;
  /** When the latest response was first seen being written (0: not yet). */
  writingSince: number;
}

const isKeyed = (req: IncomingMessage): boolean => /^bearer\s/i.test(req.headers.authorization ?? '');

/**
 * Why a connection makes no progress, or null while it does (or its request is with the application: keyed
 * requests, and any request being worked on, are never closed here). Samples the socket's queued output.
 */
function stuck(socket: Socket, e: Entry, now: number): ClosedReason | null {
  if (!e.req || !e.res) return 'unfinished';
  if (e.res.writableFinished) return 'idle';
  if (!e.req.complete) return 'unfinished';
  if (!e.res.headersSent) return null;
  const pending = socket.writableLength;
  if (pending === 0 || pending < e.pending) e.progressAt = now;
  e.pending = pending;
  return pending > 0 ? 'unread' : null;
}

/** How long the connection has been stuck for `reason`. */
const stuckFor = (e: Entry, reason: ClosedReason, now: number): number => now - (reason === 'unread' ? e.progressAt : e.since);

/**
 * Bounds a listener's open connections, at the socket, before Node allocates an HTTP parser for it (docs/spec.md
 * §7). A connection over a cap (its address's, or the total when nothing can make room) is answered — 429
 * RATE_LIMITED or 503 with Retry-After and `Connection: close` — once its request arrives, never counted in
 * the caps; only when `maxAnswering` such connections are already being answered is one reset. From
 * PRESSURE_SHARE of `maxTotal` on, connections without progress for PRESSURE_GRACE_MS are closed: no complete
 * request (headers or body), an answer the client does not read, keep-alive idle. At `maxTotal` a new
 * connection evicts the oldest without a request, else the one stuck longest (unread or unfinished before
 * idle). Apart from pressure, a response still not delivered `writeTimeoutMs` after it started is dropped.
 * Connections whose request is with the application are never closed here (the request deadlines bound them).
 */
export function guardConnections(server: Server, opts: ConnectionGuardOptions): { status(): ListenerStatus } {
  const all = new Map<Socket, Entry>();
  // Insertion order is age: the first entry is the oldest, evicted first.
  const unserved = new Map<Socket, Entry>();
  const perAddress = new Map<string, number>();
  const answering = new Map<Socket, RefusalReason>();
  const maxAnswering = opts.maxAnswering ?? 4 * opts.maxTotal;
  const writeTimeoutMs = opts.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const pressureAt = Math.max(1, Math.floor(opts.maxTotal * PRESSURE_SHARE));
  const labels = { listener: opts.listener };
  const open = opts.metrics.open.labels(labels);
  opts.metrics.limit.set(labels, opts.maxTotal);
  open.set(0);
  const refused = { per_address: opts.metrics.refused.labels({ ...labels, reason: 'per_address' }), total: opts.metrics.refused.labels({ ...labels, reason: 'total' }) };
  const reset = opts.metrics.refused.labels({ ...labels, reason: 'reset' });
  const closedEarly = Object.fromEntries(CLOSED_REASONS.map((r) => [r, opts.metrics.closedEarly.labels({ ...labels, reason: r })])) as Record<ClosedReason, { inc(): void }>;
  const keyedRefusedCounter = opts.metrics.keyedRefused.labels(labels);
  for (const c of [...Object.values(refused), reset, keyedRefusedCounter]) c.inc(0);
  for (const r of CLOSED_REASONS) opts.metrics.closedEarly.labels({ ...labels, reason: r }).inc(0);
  let lastSweep = -Infinity;
  let noCandidateUntil = -Infinity;
  const keyed = { refused: 0, lastAt: null as number | null };
  let lastResetAt: number | null = null;

  const log = summaryLog(opts, () => all.size, opts.clock);

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

  /** Under pressure, at most every SWEEP_EVERY_MS: closes every connection without progress for longer than the grace. */
  const sweep = (now: number): void => {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    for (const [socket, entry] of all) {
      const reason = stuck(socket, entry, now);
      if (reason && stuckFor(entry, reason, now) >= PRESSURE_GRACE_MS) closeEarly(socket, reason);
    }
  };

  /** At the cap: room for one more, taken from the oldest connection without a request, else the one stuck longest. */
  const evictOne = (now: number): boolean => {
    const oldest = unserved.keys().next();
    if (!oldest.done) {
      closeEarly(oldest.value, 'unfinished');
      return true;
    }
    // A walk, not repeated within SWEEP_EVERY_MS of finding nothing to close (a flood would walk per accept).
    if (now < noCandidateUntil) return false;
    let best: { socket: Socket; reason: ClosedReason; rank: number } | null = null;
    for (const [socket, entry] of all) {
      const reason = stuck(socket, entry, now);
      if (!reason) continue;
      // Idle keep-alives are somebody's pool, ready to ask again: those that hold without progress go first.
      const rank = stuckFor(entry, reason, now) + (reason === 'idle' ? 0 : 1e9);
      if (!best || rank > best.rank) best = { socket, reason, rank };
    }
    if (best) closeEarly(best.socket, best.reason);
    else noCandidateUntil = now + SWEEP_EVERY_MS;
    return best !== null;
  };

  /** Over a cap: answered when its request comes (the HTTP parser reads it), or reset when the room for that is full. */
  const overCap = (socket: Socket, reason: RefusalReason, key: string | null): boolean => {
    refused[reason].inc();
    const full = answering.size >= maxAnswering;
    log.refused(reason, key, full);
    if (full) {
      reset.inc();
      lastResetAt = opts.clock.now();
      socket.destroy();
      return false;
    }
    answering.set(socket, reason);
    socket.once('close', () => answering.delete(socket));
    socket.setTimeout(ANSWER_WAIT_MS, () => socket.destroy());
    return true;
  };

  const admit = (socket: Socket): boolean => {
    const address = socket.remoteAddress;
    if (!address) {
      socket.destroy(); // gone before it was accepted
      return false;
    }
    const key = opts.maxPerAddress > 0 && !opts.exempt?.(address) ? addressKey(address) : null;
    if (key !== null && (perAddress.get(key) ?? 0) >= opts.maxPerAddress) return overCap(socket, 'per_address', key);
    const now = opts.clock.monotonic();
    if (all.size >= pressureAt) sweep(now);
    if (all.size >= opts.maxTotal && !evictOne(now)) return overCap(socket, 'total', key);
    const entry: Entry = { key, since: now, req: null, res: null, pending: Infinity, progressAt: now, writingSince: 0 };
    all.set(socket, entry);
    unserved.set(socket, entry);
    if (key !== null) perAddress.set(key, (perAddress.get(key) ?? 0) + 1);
    open.inc();
    socket.once('close', () => release(socket));
    return true;
  };

  /** Responses past the write timeout are dropped; unread answers' progress is sampled for the pressure sweep. */
  const checkWrites = (): void => {
    const now = opts.clock.monotonic();
    for (const [socket, entry] of all) {
      if (!entry.res || entry.res.writableFinished || !entry.res.headersSent) continue;
      stuck(socket, entry, now);
      if (entry.writingSince === 0) entry.writingSince = now;
      else if (now - entry.writingSince >= writeTimeoutMs) closeEarly(socket, 'write_timeout');
    }
  };
  const writeTimer = opts.clock.every(Math.min(WRITE_CHECK_MS, writeTimeoutMs), checkWrites);

  // Node's own connection listener (the HTTP parser) runs only for admitted sockets and those to answer.
  const downstream = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) return;
    for (const listener of downstream) listener.call(server, socket);
  });
  // Per request: a lookup and a few fields, no listener (a quote's budget is counted in microseconds).
  const application = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const over = answering.get(req.socket);
    if (over) {
      if (over === 'total' && isKeyed(req)) {
        keyed.refused++;
        keyed.lastAt = opts.clock.now();
        keyedRefusedCounter.inc();
      }
      return answerOverCap(res, over, opts.requestId(req));
    }
    const entry = all.get(req.socket);
    if (entry) {
      if (entry.res === null) unserved.delete(req.socket);
      entry.req = req;
      entry.res = res;
      entry.since = opts.clock.monotonic();
      entry.progressAt = entry.since;
      entry.pending = Infinity;
      entry.writingSince = 0;
    }
    for (const listener of application) listener.call(server, req, res);
  });
  server.once('close', () => {
    writeTimer.cancel();
    log.stop();
  });

  const status = (): ListenerStatus => ({ open: all.size, limit: opts.maxTotal, answering: answering.size, saturated: all.size >= pressureAt, keyedRefused: keyed.refused, lastKeyedRefusedAt: keyed.lastAt, lastResetAt });
  opts.metrics.listeners.set(opts.listener, status);
  return { status };
}

/** The per-address key: the address, an IPv6 /56 as one (as the anonymous rate limit counts them). */
function addressKey(address: string): string {
  try {
    return normalizeIP(address, 56);
  } catch {
    return address;
  }
}
