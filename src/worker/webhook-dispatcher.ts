import { createHmac } from 'node:crypto';
import pLimit from 'p-limit';
import type { Db } from '../store/db.ts';
import { getOrderById } from '../store/orders-store.ts';
import { claimWebhookEvents, markWebhookDelivered, markWebhookFailed, type DueWebhookEvent } from '../store/webhooks-store.ts';
import { statusRecord } from '../services/order-views.ts';

const BATCH = 50;
const PARALLEL = 8;
const TIMEOUT_MS = 5_000;

/** `Hush-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the receiver checks it and the age of t. */
export function webhookSignature(secret: string, timestampS: number, body: string): string {
  return `t=${timestampS},v1=${createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex')}`;
}

/**
 * Delivers order events (webhook_events, written with every transition) to each account's webhook: at least
 * once, each event with a stable id for the receiver to drop repeats, retried with backoff until a 2xx.
 * Events of one order can arrive out of order after a retry; each carries the order's status record at
 * delivery time, so a receiver keeps the newest `updatedAt`.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly parallel = pLimit(PARALLEL);

  constructor(
    private readonly db: Db,
    private readonly opts: { pollMs?: number; log?: (msg: string) => void } = {},
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch((e: unknown) => this.opts.log?.(`webhooks: pass failed: ${(e as Error).message}`))
        .then((full) => this.schedule(full === true ? 0 : (this.opts.pollMs ?? 500)));
    }, ms);
    this.timer.unref();
  }

  /** One claim and its deliveries; true when the claim was full (more may be due). */
  async pass(): Promise<boolean> {
    const due = await claimWebhookEvents(this.db, BATCH);
    await Promise.all(due.map((e) => this.parallel(() => this.deliver(e))));
    return due.length === BATCH;
  }

  private async deliver(e: DueWebhookEvent): Promise<void> {
    if (!e.url || !e.secret) return markWebhookFailed(this.db, e.id, 'the account has no webhook any more', true);
    const order = await getOrderById(this.db, e.orderId);
    if (!order) return markWebhookFailed(this.db, e.id, 'order not found', true);
    const body = JSON.stringify({
      id: `evt_${e.id}`,
      type: 'order.status_changed',
      createdAt: e.at.toISOString(),
      data: { trackingId: order.trackingId, status: e.status, order: statusRecord(order) },
    });
    try {
      const res = await fetch(e.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'hush-event-id': `evt_${e.id}`,
          'hush-signature': webhookSignature(e.secret, Math.floor(Date.now() / 1000), body),
        },
        body,
        redirect: 'manual', // a redirect is an answer, not a delivery: the URL is the operator's to change
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) return markWebhookDelivered(this.db, e.id);
      return markWebhookFailed(this.db, e.id, `HTTP ${res.status}`);
    } catch (err) {
      return markWebhookFailed(this.db, e.id, (err as Error).message);
    }
  }
}
