import { Counter } from 'prom-client';

/**
 * delivered: answered 2xx; rejected: answered, not 2xx; unreachable: no answer (connection refused, timed
 * out, aborted at stop); refused: not sent, the URL's address is not one webhooks may reach; dropped: not
 * attempted (the account has no webhook any more, the order is gone).
 */
const WEBHOOK_OUTCOMES = ['delivered', 'rejected', 'unreachable', 'refused', 'dropped'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** The dispatcher's counters, unregistered: the composition root hands them to the registry /metrics serves. */
export class WebhookMetrics {
  readonly deliveries = new Counter({ name: 'hush_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'] as const, registers: [] });
  readonly givenUp = new Counter({ name: 'hush_webhook_events_given_up_total', help: 'Webhook events given up (retries exhausted or nowhere to deliver)', registers: [] });

  constructor() {
    // Every outcome shows from the start at 0, so a rate or an alert on it has a series before the first failure.
    for (const outcome of WEBHOOK_OUTCOMES) this.deliveries.inc({ outcome }, 0);
  }

  get all() {
    return [this.deliveries, this.givenUp];
  }
}
