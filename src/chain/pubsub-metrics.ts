import { Counter, Gauge, type Metric } from 'prom-client';
import type { ChainSubscriptions } from './chain-subscriptions.ts';

const STATES = ['connecting', 'connected', 'reconnecting', 'closed'] as const;

/**
 * /metrics of the worker's PubSub connection, read from its stats when scraped: the state (1 for the
 * current one), reconnects, and notifications by kind. `subs` is asked each time (the worker, and so its
 * subscriptions, start after the metrics are built; an API-only process has none).
 */
export function pubsubMetrics(subs: () => ChainSubscriptions | null): Metric[] {
  return [
    new Gauge({
      name: 'hush_pubsub_state',
      help: 'PubSub WebSocket state of the settlement worker (1 for the current state)',
      labelNames: ['state'] as const,
      registers: [],
      collect() {
        const s = subs();
        for (const st of STATES) this.set({ state: st }, s?.state === st ? 1 : 0);
      },
    }),
    new Counter({
      name: 'hush_pubsub_reconnects_total',
      help: 'PubSub WebSocket reconnects of the settlement worker',
      registers: [],
      collect() {
        // The count lives in the connection: mirrored on each scrape.
        this.reset();
        this.inc(subs()?.stats().reconnects ?? 0);
      },
    }),
    new Counter({
      name: 'hush_pubsub_notifications_total',
      help: 'PubSub notifications received by the settlement worker, by kind',
      labelNames: ['kind'] as const,
      registers: [],
      collect() {
        const n = subs()?.stats().notifications;
        this.reset();
        if (!n) return;
        for (const kind of ['slot', 'account', 'signature'] as const) this.inc({ kind }, n[kind]);
      },
    }),
  ];
}
