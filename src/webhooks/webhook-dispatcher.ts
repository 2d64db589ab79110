import { alertsTotal, type AlertSink } from '../support/alerts.ts';
import { createHmac } from 'node:crypto';
import pLimit from 'p-limit';
import type { Db } from '../store/db.ts';
import { getOrdersByIds } from '../store/orders-store.ts';
import { claimWebhookEvents, markWebhookDelivered, markWebhookFailed, purgeWebhookEvents, type DueWebhookEvent } from '../store/webhooks-store.ts';
import { recordAsOf, statusRecord, type StatusRecord } from '../services/order-views.ts';
import { postWebhook } from './webhook-delivery.ts';
import { EgressRefusedError, WebhookEgress } from './webhook-egress.ts';
import type { WebhookMetrics, WebhookOutcome } from './webhook-metrics.ts';

const BATCH = 16;
const PARALLEL = 8;
const TIMEOUT_MS = 5_000;
/** Outlasts a whole pass (every event of the batch timing out, PARALLEL at a time), so no other dispatcher re-claims them meanwhile. */
const LEASE_S = (Math.ceil(BATCH / PARALLEL) * TIMEOUT_MS) / 1000 + 30;
const PURGE_EVERY_MS = 3_600_000;

export { webhookSignature } from './webhook-delivery.ts';

/**
 * Delivers order events (webhook_events, written with every transition: `order.status_changed`, and for a
 * payout held for its class, `order.released` beside its `sending`) to each account's webhook: at least
 * once, each event with a stable id for the receiver to drop repeats, retried with backoff until a 2xx.
 * One order's events go out one at a time and in order (the claim takes only the oldest pending one), so
 * a failing event holds back the rest of its order only; `data.sequence` never decreases along them (a release
 * shares its `sending` transition's).
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private lastPurge = 0;
  private readonly parallel = pLimit(PARALLEL);
  private aborts = new AbortController();
  private readonly egress: WebhookEgress;

  constructor(
    private readonly db: Db,
    private readonly opts: { pollMs?: number; log?: (msg: string) => void; alert?: AlertSink; eventIdKey?: Uint8Array; metrics?: WebhookMetrics; egress?: WebhookEgress } = {},
  ) {
    // Without a policy, the production one: public https addresses only.
    this.egress = opts.egress ?? new WebhookEgress({ loopback: false });
  }

  start(): void {
    this.stopped = false;
    this.aborts = new AbortController();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.aborts.abort(); // in-flight deliveries fail and are retried by whoever runs next
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch((e: unknown) => {
          this.opts.log?.(`webhooks: pass failed: ${(e as Error).message}`);
          return false;
        })
        .then((more) => this.schedule(more ? 0 : (this.opts.pollMs ?? 500)));
    }, ms);
    this.timer.unref();
  }

  /** One claim and its deliveries; true when it claimed anything (the next events of those orders may be due now). */
  async pass(): Promise<boolean> {
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      await purgeWebhookEvents(this.db);
    }
    const due = await claimWebhookEvents(this.db, BATCH, LEASE_S);
    if (due.length === 0) return false;
    const orders = new Map((await getOrdersByIds(this.db, due.map((e) => e.orderId))).map((o) => [o.id, statusRecord(o)]));
    const results = await Promise.allSettled(due.map((e) => this.parallel(() => this.deliver(e, orders.get(e.orderId)))));
    for (const r of results) if (r.status === 'rejected') this.opts.log?.(`webhooks: delivery failed: ${(r.reason as Error).message}`);
    return true;
  }

  /**
   * The event's public id: stable for every attempt (receivers drop repeats by it) but keyed, so a partner
   * cannot read Hush's total event volume off a sequence number.
   */
  private eventId(id: string | number): string {
    if (!this.opts.eventIdKey) return `evt_${id}`;
    return `evt_${createHmac('sha256', this.opts.eventIdKey).update(String(id)).digest('base64url').slice(0, 22)}`;
  }

  private async deliver(e: DueWebhookEvent, order: StatusRecord | undefined): Promise<void> {
    const count = (outcome: WebhookOutcome) => this.opts.metrics?.deliveries.inc({ outcome });
    const fail = async (error: string, giveUp = false) => {
      const failed = await markWebhookFailed(this.db, e, error, giveUp);
      if (!failed?.givenUp) return;
      this.opts.metrics?.givenUp.inc();
      const msg = `webhook event ${this.eventId(e.id)} (#${e.id}, ${e.type}, order ${order?.trackingId ?? e.orderId}, ${e.status}) given up after ${e.attempts} attempts: ${error}`;
      if (this.opts.alert) this.opts.alert('webhook_given_up', { eventId: this.eventId(e.id), trackingId: order?.trackingId ?? null, status: e.status, attempts: e.attempts, error }, msg);
      else {
        alertsTotal.inc({ kind: 'webhook_given_up' });
        this.opts.log?.(`ALERT: ${msg}`);
      }
    };
    if (!e.url || !e.secret || !order) {
      count('dropped');
      return fail(order ? 'the account has no webhook any more' : 'order not found', true);
    }
    const eventId = this.eventId(e.id);
    const body = JSON.stringify({
      id: eventId,
      type: e.type,
      createdAt: e.at.toISOString(),
      data: { trackingId: order.trackingId, status: e.status, sequence: e.sequence, order: recordAsOf(order, { status: e.status, sequence: Number(e.sequence), at: e.at }) },
    });
    try {
      const secrets = e.previousSecret ? [e.secret, e.previousSecret] : [e.secret];
      const status = await postWebhook(this.egress, e.url, eventId, body, secrets, AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), this.aborts.signal]));
      if (status >= 200 && status < 300) {
        count('delivered');
        return markWebhookDelivered(this.db, e);
      }
      count('rejected');
      return fail(`HTTP ${status}`);
    } catch (err) {
      // Refused: retried like any failure (the name may point somewhere public again), counted apart.
      count(err instanceof EgressRefusedError ? 'refused' : 'unreachable');
      return fail((err as Error).message);
    }
  }
}
