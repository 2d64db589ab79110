import { Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ORDER_STATUSES } from '../domain/order-state.ts';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
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
    // Base units as a float: fine for dashboards and skew alerts, never used for money.
    new Gauge({
      name: 'hush_inventory_free_base_units',
      help: 'Pool inventory free to pay out, per asset (after pending payouts and open orders)',
      labelNames: ['asset'] as const,
      registers: [registry],
      collect() {
        for (const a of inventory.assets) this.set({ asset: a }, Number(inventory.available(a)));
      },
    });
    new Gauge({
      name: 'hush_inventory_skew_ratio',
      help: 'Free pool inventory over its target, per asset (alert when far from 1)',
      labelNames: ['asset'] as const,
      registers: [registry],
      collect() {
        for (const a of inventory.assets) {
          const t = inventory.target?.(a);
          if (t && t > 0n) this.set({ asset: a }, Number((inventory.available(a) * 10_000n) / t) / 10_000);
        }
      },
    });
  }
  return { registry, httpDuration };
}

/**
 * Starts the latency measurement of one request: call it from the app's onRequest hook. Observed when the
 * response closes (finished or aborted), from a listener on the raw response rather than a Fastify
 * onResponse hook: the hook machinery plus `reply.elapsedTime` cost ~10 µs per request, a visible share
 * of a quote. One labelled child per (route, method, status), so labels are hashed once.
 */
export function requestTimer(metrics: Metrics): (request: FastifyRequest, reply: FastifyReply) => void {
  const children = new Map<string, { observe(v: number): void }>();
  return (request, reply) => {
    const started = performance.now();
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
      child.observe((performance.now() - started) / 1000);
    });
  };
}
