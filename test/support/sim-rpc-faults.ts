/**
 * A provider's misbehaviour in front of a simulated Hush's chain (test/support/sim-hush.ts), on simulated time:
 * what src/localnet/rpc-fault-proxy.ts does to a real Hush over sockets — scripted or random 503s, 429s with
 * Retry-After, stalls, answers lost after the call ran, a provider's request budget — plus an RPC that never
 * answers and a hold on the requests a test names by their content. Only Hush's own requests are touched:
 * users reach the chain without faults (`SimHush.chain`).
 *
 * The simulator's fault plan (sim/faults.ts) draws a fate from a request's methods alone; these tests need
 * faults by count, by window and by content, so the stand-in wraps `ChainWire.serve`, the one place every
 * request of every life of Hush passes on its way to the chain.
 */
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { stream } from '../../sim/world.ts';
import { HushClient, type HushTransport } from './hush-client.ts';
import type { SimHush } from './sim-hush.ts';

/** '503' and '429' answer at once; 'stall' waits before the call goes; 'lost' runs the call and loses its answer; 'silent' never answers. */
export type SimFaultKind = '503' | '429' | 'stall' | 'lost' | 'silent';

export interface SimFaultRule {
  kind: SimFaultKind;
  /** Share of matching requests that get the fault (default 1). */
  probability?: number;
  /** Only requests that carry one of these methods (default: every request). */
  methods?: readonly string[];
  stallMs?: number;
  /** For '429': the Retry-After sent, in seconds (default 1). */
  retryAfterS?: number;
  /** Applies to this many matching requests, then no more (default: no end). */
  times?: number;
}

/** A provider's budget: at most `perMethod` calls of one method and `total` in all per sliding window; over it, 429. */
export interface ProviderBudget {
  windowMs: number;
  perMethod: number;
  total: number;
  retryAfterS?: number;
}

type Serve = (body: string, signal: AbortSignal | undefined) => Promise<Response>;

export class RpcStandIn {
  /** Calls by method (each call of a batch counts), answered or refused, since the last reset. */
  readonly counts = new Map<string, number>();
  /** Requests by what they were given: ok, 503, 429, stall, lost, silent, held. */
  readonly outcomes = new Map<string, number>();
  private rules: SimFaultRule[] = [];
  private budget: ProviderBudget | null = null;
  private readonly seen = new Map<string, number[]>();
  private holding: ((body: string) => boolean) | null = null;
  private releaseHeld: () => void = () => {};
  private released: Promise<void> = Promise.resolve();
  /** Requests whose caller gave up while they were held: they still reach the chain at the release, as over a socket. */
  private readonly heldAfterCaller: string[] = [];
  private readonly random;

  constructor(private readonly h: SimHush) {
    this.random = stream(h.world.opts.seed, 'rpc stand-in');
    const wire = h.world.wire as unknown as { serve: Serve };
    const inner: Serve = wire.serve.bind(h.world.wire);
    wire.serve = (body, signal) => this.serve(inner, body, signal);
  }

  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  reset(): void {
    this.counts.clear();
    this.outcomes.clear();
  }

  setFaults(rules: SimFaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r }));
  }

  setBudget(b: ProviderBudget | null): void {
    this.budget = b;
    this.seen.clear();
  }

  /** Holds every request whose body `matches` until `release()`; how many were held so far. */
  hold(matches: (body: string) => boolean): void {
    this.holding = matches;
    this.released = new Promise<void>((r) => (this.releaseHeld = r));
  }

  held(): number {
    return this.outcomes.get('held') ?? 0;
  }

  release(): void {
    this.holding = null;
    this.releaseHeld();
    for (const body of this.heldAfterCaller.splice(0)) void this.h.world.wire.direct(body).catch(() => {});
  }

  private bump(m: Map<string, number>, k: string): void {
    m.set(k, (m.get(k) ?? 0) + 1);
  }

  private async serve(inner: Serve, body: string, signal: AbortSignal | undefined): Promise<Response> {
    const methods = methodsOf(body);
    for (const m of methods) this.bump(this.counts, m);
    if (this.holding?.(body)) {
      this.bump(this.outcomes, 'held');
      await this.untilReleased(body, signal);
    }
    const rule = this.rules.find((f) => (f.times ?? 1) > 0 && (!f.methods || methods.some((m) => f.methods!.includes(m))) && this.random.float() < (f.probability ?? 1));
    if (rule?.times !== undefined) rule.times--;
    if (rule?.kind === '503') {
      this.bump(this.outcomes, '503');
      return new Response('Service Unavailable', { status: 503 });
    }
    if (rule?.kind === '429' || this.overBudget(methods)) {
      this.bump(this.outcomes, '429');
      const retryAfter = rule?.kind === '429' ? (rule.retryAfterS ?? 1) : (this.budget?.retryAfterS ?? 1);
      return new Response('{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests"},"id":null}', { status: 429, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfter) } });
    }
    if (rule?.kind === 'silent') {
      this.bump(this.outcomes, 'silent');
      return this.never(signal);
    }
    if (rule?.kind === 'stall') {
      this.bump(this.outcomes, 'stall');
      await this.wait(rule.stallMs ?? 2_000, signal);
    }
    if (rule?.kind === 'lost') {
      this.bump(this.outcomes, 'lost');
      await inner(body, undefined);
      throw new TypeError('fetch failed: connection reset');
    }
    if (!rule) this.bump(this.outcomes, 'ok');
    return inner(body, signal);
  }

  private untilReleased(body: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.heldAfterCaller.push(body);
        reject(abortError(signal!));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.released.then(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  private never(signal: AbortSignal | undefined): Promise<Response> {
    return new Promise<Response>((_resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      signal?.addEventListener('abort', () => reject(abortError(signal)), { once: true });
    });
  }

  private wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const onAbort = () => (t.cancel(), reject(abortError(signal!)));
      const t = this.h.clock.after(ms, () => (signal?.removeEventListener('abort', onAbort), resolve()));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private overBudget(methods: string[]): boolean {
    const budget = this.budget;
    if (!budget) return false;
    const now = this.h.now();
    const recent = (k: string) => {
      const list = (this.seen.get(k) ?? []).filter((t) => now - t < budget.windowMs);
      this.seen.set(k, list);
      return list;
    };
    const per = new Map<string, number>();
    for (const m of methods) per.set(m, (per.get(m) ?? 0) + 1);
    if (recent('*').length + methods.length > budget.total) return true;
    for (const [m, n] of per) if (recent(m).length + n > budget.perMethod) return true;
    for (const m of methods) (this.seen.get(m)!.push(now), this.seen.get('*')!.push(now));
    return false;
  }
}

/** The provider stand-in in front of this simulated Hush's chain (one per SimHush). */
export function rpcStandIn(h: SimHush): RpcStandIn {
  return new RpcStandIn(h);
}

function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { method?: unknown } | { method?: unknown }[];
    return (Array.isArray(parsed) ? parsed : [parsed]).map((c) => (typeof c?.method === 'string' ? c.method : '?'));
  } catch {
    return ['?'];
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

// ------------------------------------------------------------------------------------------ the API's log

export interface ApiLogRecord {
  level: number;
  msg?: string;
  err?: { type?: string; message?: string };
}

/**
 * The partner API's and the ops listener's log, as `npm start`'s pino writes it (pino's err serializer: a record
 * that pino cannot serialise fails here as it would there). The simulated Hush runs Fastify without a logger,
 * whose request loggers are the app's own (a child of none is itself): its methods are pointed at a pino that
 * writes into the returned list. Requests by `inject` get no completion record (Fastify writes it when a socket's
 * response finishes): `answers` keeps their statuses. Call again after a restart (a new life has new apps).
 */
export function captureApiLog(h: SimHush, into: ApiLogRecord[] = []): ApiLogRecord[] {
  const logger = pino({ level: 'info', serializers: { err: pino.stdSerializers.err } }, { write: (line: string) => void into.push(JSON.parse(line) as ApiLogRecord) });
  for (const app of [h.hush.app, h.hush.opsApp].filter((a): a is FastifyInstance => a !== null)) {
    const log = app.log as unknown as Record<string, unknown>;
    for (const level of ['fatal', 'error', 'warn', 'info'] as const) log[level] = logger[level].bind(logger);
  }
  return into;
}

/** Clients of the partner port (with `apiKey`) and of the ops listener whose every answer's status goes into `statuses`. */
export function answers(h: SimHush, apiKey: string, statuses: { status: number; path: string }[]): { client: HushClient; ops: HushClient } {
  const recording = (app: () => FastifyInstance): HushTransport => {
    const inner = h.transport(app);
    return async (req) => {
      const res = await inner(req);
      statuses.push({ status: res.status, path: `${req.method} ${req.path}` });
      return res;
    };
  };
  return {
    client: new HushClient(`inject://sim-${h.world.opts.seed}`, apiKey, recording(() => h.hush.app!)),
    ops: new HushClient(`inject://sim-${h.world.opts.seed}-ops`, h.world.adminToken, recording(() => h.hush.opsApp)),
  };
}
