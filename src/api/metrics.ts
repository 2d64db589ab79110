import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ORDER_STATUSES } from '../domain/order-state.ts';
import type { ListenerStatus } from './listener-status.ts';
import type { Clock } from '../support/clock.ts';

/** What each listener's connection guard counts (src/api/connection-guard.ts), by `listener` (partner, ops). */
export interface ConnectionMetrics {
  open: Gauge<'listener'>;
  limit: Gauge<'listener'>;
  refused: Counter<'listener' | 'reason'>;
  closedEarly: Counter<'listener' | 'reason'>;
  keyedRefused: Counter<'listener'>;
  /** Each guarded listener's status, by listener: /readyz reads the partner port's, the gauges below all. */
  listeners: Map<string, () => ListenerStatus>;
}

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  connections: ConnectionMetrics;
}

function connectionMetrics(registry: Registry): ConnectionMetrics {
  const registers = [registry];
  const listeners = new Map<string, () => ListenerStatus>();
  new Gauge({
    name: 'hush_connections_saturation_ratio',
    help: 'Open connections over the cap, by listener (from 0.8 connections without progress are closed; at 1 a new one evicts one or is answered 503)',
    labelNames: ['listener'] as const,
    registers,
    collect() {
      for (const [listener, status] of listeners) {
        const s = status();
        this.set({ listener }, s.limit > 0 ? s.open / s.limit : 0);
      }
    },
  });
  new Gauge({
    name: 'hush_connections_answering',
    help: 'Connections over a cap being answered 429/503 (Connection: close) right now, by listener',
    labelNames: ['listener'] as const,
    registers,
    collect() {
      for (const [listener, status] of listeners) this.set({ listener }, status().answering);
    },
  });
  return {
    listeners,
    open: new Gauge({ name: 'hush_connections_open', help: 'Open connections, by listener', labelNames: ['listener'] as const, registers }),
    limit: new Gauge({ name: 'hush_connections_limit', help: 'The most open connections a listener keeps (HUSH_MAX_CONNECTIONS, HUSH_OPS_MAX_CONNECTIONS)', labelNames: ['listener'] as const, registers }),
    refused: new Counter({
      name: 'hush_connections_refused_total',
      help: 'Connections over a cap: per_address (HUSH_MAX_CONNECTIONS_PER_IP, answered 429) or total (nothing to evict, answered 503), both with Connection: close; reset: closed unanswered, the room for answers full (near the descriptor limit)',
      labelNames: ['listener', 'reason'] as const,
      registers,
    }),
    closedEarly: new Counter({
      name: 'hush_connections_closed_early_total',
      help: 'Connections closed without progress: unfinished (no complete request yet), idle (keep-alive), unread (the client does not read its answer) near the cap; write_timeout (an answer not delivered within HUSH_WRITE_TIMEOUT_MS) always',
      labelNames: ['listener', 'reason'] as const,
      registers,
    }),
    keyedRefused: new Counter({ name: 'hush_connections_keyed_refused_total', help: 'Requests with a bearer key answered 503 at the total connection cap (readiness degrades while they happen)', labelNames: ['listener'] as const, registers }),
  };
}

/** Steps of /metrics' inventory ratio: a tenth of the target (and no more than INVENTORY_CAP targets). */
const INVENTORY_STEP = 0.1;
const INVENTORY_CAP = 3;

/** free / target rounded down to a step, in exact integer arithmetic (bigint balances). */
function coarseRatio(free: bigint, target: bigint): number {
  if (free <= 0n) return 0;
  const steps = (free * 10n) / target; // tenths
  return Math.min(INVENTORY_CAP, Number(steps) / 10);
}

/** One registry per app instance (tests build many apps in one process). */
export function createMetrics(
  countOrdersByStatus: () => Promise<Map<string, number>>,
  inventory?: { assets: readonly string[]; available(assetId: string): bigint; target?(assetId: string): bigint | undefined },
  /** Metrics kept elsewhere (the chain client's RPC request counter), served here too. */
  shared: readonly Metric[] = [],
): Metrics {
  const registry = new Registry();
  for (const m of shared) registry.registerMetric(m);
  collectDefaultMetrics({ register: registry, prefix: 'hush_' });
  const httpDuration = new Histogram({
    name: 'hush_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'hush_orders',
    help: 'Orders by status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await countOrdersByStatus().catch(() => null);
      if (!counts) return;
      for (const s of ORDER_STATUSES) this.set({ status: s }, counts.get(s) ?? 0);
    },
  });
  if (inventory) {
    // Free inventory against its target in coarse steps, never the balance itself: exact pool figures help
    // link deposits to payouts (docs/spec.md §4). Enough to alert on (low below 0.2, skewed far from 1).
    new Gauge({
      name: 'hush_inventory_skew_ratio',
      help: `Free pool inventory over its target, per asset, rounded down to steps of ${INVENTORY_STEP} and capped at ${INVENTORY_CAP} (alert when far from 1)`,
      labelNames: ['asset'] as const,
      registers: [registry],
      collect() {
        for (const a of inventory.assets) {
          const t = inventory.target?.(a);
          if (t && t > 0n) this.set({ asset: a }, coarseRatio(inventory.available(a), t));
        }
      },
    });
  }
  return { registry, httpDuration, connections: connectionMetrics(registry) };
}

/**
 * Starts the latency measurement of one request: call it from the app's onRequest hook. Observed when the
 * response closes (finished or aborted), from a listener on the raw response rather than a Fastify
 * onResponse hook: the hook machinery plus `reply.elapsedTime` cost ~10 µs per request, a visible share
 * of a quote. One labelled child per (route, method, status), so labels are hashed once.
 */
export function requestTimer(metrics: Metrics, clock: Pick<Clock, 'monotonic'>): (request: FastifyRequest, reply: FastifyReply) => void {
  const children = new Map<string, { observe(v: number): void }>();
  return (request, reply) => {
    const started = clock.monotonic();
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    reply.raw.once('close', () => {
      const status = reply.raw.statusCode;
      const key = `${route} ${method} ${status}`;
      let child = children.get(key);
      if (!child) {
        child = metrics.httpDuration.labels({ route, method, status: String(status) });
        if (children.size < 1000) children.set(key, child);
      }
      child.observe((clock.monotonic() - started) / 1000);
    });
  };
}
