import type { FastifyInstance } from 'fastify';

/** The token bucket refills from empty in this many seconds (docs/spec.md §7: 2 × rate, burst ×2). */
const WINDOW_S = 2;

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured fields) from the same
 * bucket as the RateLimit-Limit/-Remaining/-Reset headers they sit beside:
 * `RateLimit-Policy: "default";q=<limit>;w=2` and `RateLimit: "default";r=<remaining>;t=<reset s>`.
 */
export function ietfRateLimitFields(limit: number | string, remaining: number | string, resetS: number | string): { policy: string; state: string } {
  return { policy: `"default";q=${limit};w=${WINDOW_S}`, state: `"default";r=${remaining};t=${resetS}` };
}

/** Adds them to every answer that carries the bucket's headers (set before onSend by the limiters). */
export function addIetfRateLimitFields(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const limit = reply.getHeader('ratelimit-limit');
    const remaining = reply.getHeader('ratelimit-remaining');
    const reset = reply.getHeader('ratelimit-reset');
    if (limit !== undefined && remaining !== undefined && reset !== undefined) {
      const f = ietfRateLimitFields(String(limit), String(remaining), String(reset));
      reply.header('ratelimit-policy', f.policy).header('ratelimit', f.state);
    }
    done(null, payload);
  });
}
