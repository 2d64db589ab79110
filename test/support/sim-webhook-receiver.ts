/**
 * A partner's webhook receiver that a simulated Hush's own dispatcher and its test-send endpoint reach
 * (test/support/sim-hush.ts), for tests whose subject is the deliveries themselves: their order, retries,
 * signatures and counters. Compare test/support/sim-webhooks.ts, which hands recorded events to a dispatcher of
 * the test's own once a run is over.
 *
 * A simulated Hush reaches its chain by URL, so it runs the production egress (docs/spec.md §3, Webhooks):
 * https to public names only, nothing on this machine. The receiver therefore answers at a public https name,
 * set through the admin API as a partner's would be; what the world changes is only the network under it: the
 * egress's https connections to that name reach a node HTTP server in this process instead of resolving the
 * name and speaking TLS (as the chain's RPC is reached by inject). The URL checks, the claim, the body, the
 * signatures, the POST and what is done with the answer are all Hush's. A connection to any other name fails as
 * a name that does not resolve.
 *
 * The connections are in memory (test/support/sim-webhook-network.ts): an attempt is answered within the
 * simulated instant it was sent, or never, as the test decides.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { verifyWebhook, type HushWebhookEvent } from '../../packages/sdk/src/index.ts';
import { receiveWebhooks } from './sim-webhook-network.ts';
import type { SimHush } from './sim-hush.ts';

/** The partner's host name: public, so the production egress lets webhooks go to it. */
export const RECEIVER_HOST = 'hooks.partner.example';

export interface SimReceived {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  answered: number;
  /** The simulated instant it arrived (ms). */
  at: number;
}

export interface SimWebhookReceiver {
  /** `https://hooks.partner.example/hooks/hush`. */
  url: string;
  /** Every request, in arrival order. */
  received: SimReceived[];
  /** The next `n` requests are answered 500. */
  fail(n: number): void;
  close(): Promise<void>;
}

export async function startSimWebhookReceiver(h: SimHush, path = '/hooks/hush'): Promise<SimWebhookReceiver> {
  const received: SimReceived[] = [];
  let failures = 0;
  const network = receiveWebhooks(
    h,
    (req, res, body) => {
      const answered = failures > 0 ? (failures--, 500) : 204;
      received.push({ headers: req.headers, body, answered, at: h.now() });
      res.writeHead(answered, { connection: 'close' }).end();
    },
    { host: RECEIVER_HOST },
  );
  return {
    url: `https://${RECEIVER_HOST}${path}`,
    received,
    fail: (n) => (failures = n),
    close: async () => network.close(),
  };
}

/**
 * `fn` with the wall clock reading the simulated one: the receiver lives in the simulated world, and a Standard
 * Webhooks check (verifyWebhook) compares a signature's timestamp with its own now.
 */
export function onSimClock<T>(h: SimHush, fn: () => T): T {
  const real = Date.now;
  Date.now = () => h.now();
  try {
    return fn();
  } finally {
    Date.now = real;
  }
}

/** verifyWebhook as the partner's receiver runs it, at the simulated instant. */
export function verifyOnSim(h: SimHush, r: Pick<SimReceived, 'headers' | 'body'>, secret: string, body = r.body): HushWebhookEvent {
  return onSimClock(h, () => verifyWebhook(body, r.headers as Record<string, string>, secret));
}

/** hush_webhook_deliveries_total by outcome, read off the ops listener's /metrics as a scraper would. */
export async function deliveriesByOutcome(h: SimHush): Promise<Record<string, number>> {
  const res = await h.fetch('http://hush.sim/metrics');
  assert.equal(res.status, 200);
  const out: Record<string, number> = {};
  for (const m of (await res.text()).matchAll(/^hush_webhook_deliveries_total\{outcome="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}
