/**
 * The webhook events a simulated Hush recorded, delivered to a real receiver by the real dispatcher
 * (src/webhooks/webhook-dispatcher.ts: the claim, the body with the record as of its transition, the Standard
 * Webhooks signatures, the HTTP POST). The simulated Hush's own dispatcher cannot reach a receiver: its egress
 * allows this machine only beside an embedded chain (the simulator's is reached by URL), and a socket's answer
 * arrives outside the simulated clock. Its attempts are refused at once, without a byte sent, and the events
 * wait in the store; once the run has done what the test wanted, this hands them over, one order's events in
 * their order, each once, with the clock standing still. (A test whose subject is the deliveries themselves gives
 * the world a receiver the dispatcher does reach: test/support/sim-webhook-receiver.ts.)
 */
import type { Clock } from '../../src/support/clock.ts';
import { systemClock } from '../../src/support/clock.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { WebhookEgress } from '../../src/webhooks/webhook-egress.ts';
import type { SimHush } from './sim-hush.ts';

/**
 * Signatures dated now on the wall clock (a receiver checks their age against its own), and no timer of its
 * own: the passes run when `deliverRecorded` calls them, never in the background.
 */
const signingNow: Clock = { ...systemClock, after: () => ({ cancel() {} }), every: () => ({ cancel() {} }) };

/** Delivers every event still pending to its account's webhook URL (this machine allowed); how many passes it took. */
export async function deliverRecorded(h: SimHush): Promise<number> {
  // Due now on the store's (simulated) clock, whatever backoff the refused attempts left them with.
  await h.db.query('UPDATE webhook_events SET next_attempt_at = now(), locked_until = NULL WHERE delivered_at IS NULL AND given_up_at IS NULL');
  const dispatcher = new WebhookDispatcher(h.db, { clock: signingNow, egress: new WebhookEgress({ loopback: true }) });
  let passes = 0;
  // Each pass claims the oldest pending event of each order: the next one is due once this one is delivered.
  while (await dispatcher.pass()) {
    passes++;
    await dispatcher.settled();
  }
  return passes;
}
