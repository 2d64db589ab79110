import type { FastifyRequest } from 'fastify';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { RateLimits } from '../../config/config.ts';
import { HushError } from '../../domain/errors.ts';
import type { Caller } from '../../services/authenticator.ts';

/** What the partner routes share: who calls, and the per-key bucket a route draws on. */

export function caller(request: FastifyRequest): Caller {
  // Set by the onRequest hook of the partner scope; absent only if that hook was bypassed.
  if (!request.caller) throw new HushError('UNAUTHORIZED', 'Missing or invalid API key');
  return request.caller;
}

/**
 * docs/spec.md §7's token bucket (token-bucket-store.ts): holds 2 × rate (burst ×2), refilled from empty in 2 s;
 * one per account and kind, shared by all the account's keys (issue 50: 10 keys of one account got 842 quotes in
 * 3 s against 99 with one key), whichever route of the kind draws on it: the kind is in the key, and `perKey`
 * keeps these routes' buckets in one store (its child()). Not the plugin's groupId: it is appended to
 * the anonymous bucket's key too, which would then be one per route.
 */
export function perKeyLimit(defaults: RateLimits) {
  return (kind: keyof RateLimits) => ({
    rateLimit: {
      max: (req: FastifyRequest) => 2 * (req.caller?.account.rateLimits?.[kind] ?? defaults[kind]),
      timeWindow: 2000,
      keyGenerator: (req: FastifyRequest) => `${req.caller?.account.id ?? req.ip}/${kind}`,
      perKey: true,
    } as RateLimitOptions,
  });
}
export type PerKeyLimit = ReturnType<typeof perKeyLimit>;

/** The OpenAPI security of every partner operation. */
export const BEARER = [{ bearer: [] }];
