import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.ts';
import type { Clock } from '../../support/clock.ts';
import type { Random } from '../../support/random.ts';

/** What the operational routes read; the ops listener's deps extend it. */
export interface OpsRouteDeps {
  /** What /readyz reports: read from state the process keeps, never a chain call (src/runtime/readiness.ts). */
  ready(): Promise<{ store: boolean; chain: boolean; starting?: boolean; paused?: string | null; feePayer?: string | null }>;
  metrics: Metrics;
  /** True once shutdown began: answers close their connection, /readyz is 503. */
  draining?(): boolean;
  /** docs/spec.md §12: screening as one line (`off`, or its lists' versions, provider and failure policy) (every role: the API screens quotes, the worker deposits and payouts). */
  screening?(): string;
  /** Where the listener reads "now" and times requests. */
  clock: Clock;
  /** Its request ids. */
  random: Random;
}

/** Seconds a load balancer is told to wait before asking again (every 503 carries Retry-After, docs/spec.md §6). */
const NOT_READY_RETRY_S = '5';
/** Readiness stays degraded this long after the partner port last refused a keyed request (or reset one unanswered). */
export const REFUSING_WINDOW_MS = 10_000;

/** The partner port's saturation for /readyz (docs/spec.md §7), and whether it is refusing keyed requests now. */
function partnerPort(deps: OpsRouteDeps, now: number): { details: Record<string, unknown>; refusing: boolean } | null {
  const status = deps.metrics.connections.listeners.get('partner')?.();
  if (!status) return null; // role worker: no partner port
  const recent = (at: number | null) => at !== null && now - at < REFUSING_WINDOW_MS;
  const refusing = recent(status.lastKeyedRefusedAt) || recent(status.lastResetAt);
  return {
    refusing,
    details: {
      open: status.open,
      limit: status.limit,
      saturation: Math.round((100 * status.open) / Math.max(1, status.limit)) / 100,
      saturated: status.saturated,
      answeringOverCap: status.answering,
      keyedRefused: status.keyedRefused,
      refusingKeyed: refusing,
    },
  };
}

/** Operational endpoints of the ops listener: no auth, never on the partner port (docs/spec.md §4). */
export async function opsRoutes(app: FastifyInstance, { deps }: { deps: OpsRouteDeps }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    if (deps.draining?.()) {
      return reply
        .code(503)
        .header('retry-after', NOT_READY_RETRY_S)
        .send({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: shutting down', details: { draining: true }, requestId: request.id } });
    }
    const r = await deps.ready();
    const parts: Record<string, unknown> = { store: r.store ? 'ok' : 'unreachable', chain: r.chain ? 'ok' : 'unreachable' };
    if (r.starting) parts.start = 'in progress'; // funding at start still waiting out the chain
    // docs/operations.md: payouts stopped until an operator acts (the chain shows what the store cannot explain).
    if (r.paused !== undefined) parts.settlement = r.paused ? `paused: ${r.paused}` : 'ok';
    // docs/operations.md "fee_payer_low": low is a warning (still ready); empty sends nothing.
    if (r.feePayer) parts.feePayer = r.feePayer;
    const feePayerEmpty = r.feePayer === 'empty';
    if (deps.screening) parts.screening = deps.screening();
    const port = partnerPort(deps, deps.clock.now());
    if (port) parts.partnerPort = port.details;
    if (r.store && r.chain && !r.starting && !port?.refusing && !r.paused && !feePayerEmpty) return reply.send({ success: true, ...parts });
    // A failure keeps the docs/spec.md §2 error shape like every other response.
    return reply
      .code(503)
      .header('retry-after', NOT_READY_RETRY_S)
      .send({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: r.starting ? 'Not ready: starting (waiting for the chain)' : !r.store || !r.chain ? 'Not ready: the store or the chain is unreachable' : r.paused ? `Not ready: payouts are paused (${r.paused}) until an operator acts (docs/operations.md)` : feePayerEmpty ? 'Not ready: the fee payer is empty; no transaction can be sent until it is topped up (docs/operations.md)' : 'Not ready: the partner port is at its connection limit and refusing keyed requests', details: parts, requestId: request.id } });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}
