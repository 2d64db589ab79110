import { alertsTotal, type AlertSink } from '../support/alerts.ts';
import { createHmac } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { ORDER_CHANGED_CHANNEL } from '../store/order-transitions.ts';
import { getOrdersByIds } from '../store/orders-store.ts';
import { claimWebhookEvents, markWebhookDelivered, markWebhookFailed, purgeWebhookEvents, type DueWebhookEvent } from '../store/webhooks-store.ts';
import { recordAsOf, statusRecord, type StatusRecord } from '../services/order-views.ts';
import { postWebhook, WEBHOOK_EVENT_VERSION } from './webhook-delivery.ts';
import { EgressRefusedError, WebhookEgress } from './webhook-egress.ts';
import type { WebhookMetrics, WebhookOutcome } from './webhook-metrics.ts';
import type { Clock, Timer } from '../support/clock.ts';

/** Deliveries in flight at once, in all. */
const PARALLEL = 16;
/**
 * …and per account (issue 43): a slow or failing receiver occupies at most this many, whatever its backlog,
 * and every pass claims for the others (the claim skips an account at its share).
 */
const PER_ACCOUNT = 2;
const TIMEOUT_MS = 5_000;
/** Outlasts one attempt (each claimed event is sent at once), so no other dispatcher re-claims it meanwhile. */
const LEASE_S = TIMEOUT_MS / 1000 + 30;
const PURGE_EVERY_MS = 3_600_000;
/**
 * The longest an idle dispatcher waits between claims (its wait doubles from `pollMs` while it finds nothing).
 * A new event is announced (every transition notifies ORDER_CHANGED_CHANNEL, and its events are written in
 * the same transaction), so its wait is cut back to `pollMs`; a retry this dispatcher scheduled is claimed at
 * its time. What waits up to this long is a retry another worker scheduled and a notification lost with a
 * connection. It claimed twice a second, idle or not: the costliest statement of an idle store.
 */
const IDLE_MAX_MS = 8_000;

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
  private timer: Timer | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private lastPurge = 0;
  /** When the scheduled claim runs (clock ms), and the wait it doubles while idle (from `pollMs`, set by start). */
  private timerAt = 0;
  private idleMs = 0;
  /** A transition was announced while a pass ran: the next pass comes at `pollMs`. */
  private announced = false;
  /** When the retries this dispatcher scheduled fall due (clock ms). */
  private readonly retries = new Set<number>();
  private unlisten: Promise<(() => Promise<void>) | null> = Promise.resolve(null);
  /** Deliveries in flight, in all and per account: a pass claims only for the room left. */
  private inFlight = 0;
  private readonly perAccount = new Map<string, number>();
  private readonly deliveries = new Set<Promise<void>>();
  private aborts = new AbortController();
  private readonly egress: WebhookEgress;

  constructor(
    private readonly db: Db,
    /** `clock`: the passes, retries' purge, each delivery's timeout and signature timestamp. */
    private readonly opts: { clock: Clock; pollMs?: number; log?: (msg: string) => void; alert?: AlertSink; eventIdKey?: Uint8Array; metrics?: WebhookMetrics; egress?: WebhookEgress },
  ) {
    // Without a policy, the production one: public https addresses only.
    this.egress = opts.egress ?? new WebhookEgress({ loopback: false });
  }

  start(): void {
    this.stopped = false;
    this.aborts = new AbortController();
    this.idleMs = this.pollMs;
    const news = () => this.news();
    this.unlisten = this.db.listen(ORDER_CHANGED_CHANNEL, news, news).catch((e: unknown) => {
      // Without notifications the dispatcher still claims at its idle pace.
      this.opts.log?.(`webhooks: cannot listen for new events: ${(e as Error).message}`);
      return null;
    });
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await (await this.unlisten)?.().catch(() => {});
    this.aborts.abort(); // in-flight deliveries fail and are retried by whoever runs next
    await this.running;
    await Promise.allSettled([...this.deliveries]);
  }

  private get pollMs(): number {
    return this.opts.pollMs ?? 500;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timerAt = this.opts.clock.now() + ms;
    this.timer = this.opts.clock.after(ms, () => {
      this.timer = null;
      this.running = this.pass()
        .catch((e: unknown) => {
          this.opts.log?.(`webhooks: pass failed: ${(e as Error).message}`);
          return false;
        })
        .then((more) => {
          this.running = null;
          if (more || this.announced) {
            this.idleMs = this.pollMs;
            this.announced = false;
            return this.schedule(more ? 0 : this.pollMs);
          }
          this.idleMs = Math.min(IDLE_MAX_MS, this.idleMs * 2);
          const now = this.opts.clock.now();
          for (const at of this.retries) if (at <= now) this.retries.delete(at);
          const retryIn = Math.min(...this.retries) - now;
          this.schedule(Math.max(this.pollMs, Math.min(this.idleMs, retryIn)));
        });
    });
  }

  /** A transition was committed (its events with it): claim within `pollMs`, not at the idle pace. */
  private news(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.announced = true;
      return;
    }
    this.idleMs = this.pollMs;
    if (this.timer && this.timerAt > this.opts.clock.now() + this.pollMs) {
      this.timer.cancel();
      this.schedule(this.pollMs);
    }
  }

  /**
   * One claim, for the room left (PARALLEL in all, PER_ACCOUNT each), its deliveries started and not awaited:
   * a pass never waits on a slow receiver, and each delivery's end starts the next pass. True when it claimed
   * anything (the next events of those orders may be due now). `settled()` awaits the deliveries (tests).
   */
  async pass(): Promise<boolean> {
    if (this.opts.clock.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = this.opts.clock.now();
      await purgeWebhookEvents(this.db);
    }
    const room = PARALLEL - this.inFlight;
    if (room <= 0) return false;
    const busy = [...this.perAccount].filter(([, n]) => n >= PER_ACCOUNT).map(([id]) => id);
    // An account below its share may get up to PER_ACCOUNT more: at most 2 × PER_ACCOUNT − 1 in flight, bounded,
    // and nothing claimed is ever set aside (its lease would keep it from everyone for the lease's length).
    const due = await claimWebhookEvents(this.db, room, LEASE_S, { perAccount: PER_ACCOUNT, busy });
    if (due.length === 0) return false;
    const orders = new Map((await getOrdersByIds(this.db, due.map((e) => e.orderId))).map((o) => [o.id, statusRecord(o)]));
    for (const e of due) this.launch(e, orders.get(e.orderId));
    return true;
  }

  /** Waits for every delivery in flight (tests; stop). */
  async settled(): Promise<void> {
    while (this.deliveries.size > 0) await Promise.allSettled([...this.deliveries]);
  }

  private launch(e: DueWebhookEvent, order: StatusRecord | undefined): void {
    this.inFlight++;
    this.perAccount.set(e.accountId, (this.perAccount.get(e.accountId) ?? 0) + 1);
    const p: Promise<void> = this.deliver(e, order)
      .catch((err: unknown) => this.opts.log?.(`webhooks: delivery failed: ${(err as Error).message}`))
      .finally(() => {
        this.inFlight--;
        const left = (this.perAccount.get(e.accountId) ?? 1) - 1;
        if (left > 0) this.perAccount.set(e.accountId, left);
        else this.perAccount.delete(e.accountId);
        this.deliveries.delete(p);
        // Room again: the next events (this order's next one, another account's) need not wait for the poll.
        this.kick();
      });
    this.deliveries.add(p);
  }

  private kick(): void {
    if (this.stopped || this.running !== null) return;
    this.timer?.cancel();
    this.schedule(0);
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
      if (failed && !failed.givenUp) this.retries.add(failed.nextAttemptAt.getTime());
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
      version: WEBHOOK_EVENT_VERSION,
      createdAt: e.at.toISOString(),
      data: { trackingId: order.trackingId, status: e.status, sequence: e.sequence, order: recordAsOf(order, { status: e.status, sequence: e.sequence, at: e.at }) },
    });
    try {
      const secrets = [e.secret, ...e.previousSecrets];
      const status = await postWebhook(this.egress, e.url, eventId, body, secrets, AbortSignal.any([this.opts.clock.timeout(TIMEOUT_MS), this.aborts.signal]), this.opts.clock.date());
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
