import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { normalizeIP } from '@fastify/rate-limit';
import { HushError } from '../domain/errors.ts';
import type { Clock } from '../support/clock.ts';
import { AdminThrottle } from './admin-throttle.ts';
import { AUTOMATION, operatorActor, setActor, type AdminActor, type OperatorRole } from './admin-actor.ts';

/** The console's session cookie (HttpOnly, SameSite=Strict, path /). */
export const SESSION_COOKIE = 'hush_console';
/**
 * What the console sends with every request made with its cookie: a cross-site page cannot (no CORS is granted).
 * `1` for what a person did; `refresh` for the page's own polling, which does not keep the session from idling out.
 */
export const CONSOLE_HEADER = 'x-hush-console';

type Named = { operatorId: string; name: string; role: OperatorRole };

/** How the admin API learns who asks: the shared token, a personal token, a console session. */
export interface AdminCredentials {
  /** HUSH_ADMIN_TOKEN: the deployment's automation. */
  token: string;
  /** The operator of a personal token `hush_op_…`, or null. */
  byToken?(presented: string): Promise<Named | null>;
  /** The operator of a live console session (its idle clock restarted when `active`), or null. */
  bySession?(cookieValue: string, active: boolean): Promise<Named | null>;
  /** The id of a personal token's form, to throttle failures per credential. */
  tokenId?(presented: string): string | null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A cookie's value from the request, or null. */
export function cookieOf(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=') || null;
  }
  return null;
}

export const sessionCookieOf = (request: FastifyRequest) => cookieOf(request, SESSION_COOKIE);

/**
 * The admin API's authentication (docs/spec.md §12 "Named operators"), as an onRequest hook: attaches the actor,
 * or refuses. The right credential always passes; wrong ones are throttled per address (an IPv6 /56 as one) and
 * per credential they claim (a personal token's id), so neither a guesser behind the operator's proxy nor one
 * aiming at a colleague's token locks anyone out. Reads are for every role; any other method needs a resolver
 * at least (routes ask for more where they need it), so no route can forget that a viewer only reads. The one
 * exception is a route that says so (`config.viewerMay`): a viewer's own personal tokens.
 */
export function adminAuthentication(creds: AdminCredentials, clock: Pick<Clock, 'now'>, throttle = new AdminThrottle()) {
  const expected = digest(creds.token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // Answers about holds, accounts and keys are for the operator who asked: no cache keeps them.
    reply.header('cache-control', 'no-store');
    const actor = await authenticate(request);
    if (actor) {
      const viewerMay = (request.routeOptions.config as { viewerMay?: boolean } | undefined)?.viewerMay === true;
      if (request.method !== 'GET' && request.method !== 'HEAD' && actor.role === 'viewer' && !viewerMay) {
        throw new HushError('FORBIDDEN', `${actor.name} is a viewer: a viewer reads, and changes nothing`, { role: actor.role });
      }
      return setActor(request, actor);
    }
    const source = normalizeIP(request.ip, 56);
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const claimed = presented ? creds.tokenId?.(presented) : null;
    const now = clock.now();
    const wait = Math.max(throttle.retryAfterS(source, now), claimed ? throttle.retryAfterS(`token:${claimed}`, now) : 0);
    if (wait > 0) throw new HushError('RATE_LIMITED', 'Too many failed admin attempts; wait and retry', undefined, { retryAfterSeconds: wait });
    // A request with no credentials guesses nothing: only a presented token or cookie counts as a failed attempt.
    if (presented !== undefined || sessionCookieOf(request) !== null) {
      throttle.failed(source, now);
      if (claimed) throttle.failed(`token:${claimed}`, now);
    }
    throw new HushError('UNAUTHORIZED', 'Missing or invalid admin credentials (a token, or a console session that ended: sign in again)');
  };

  async function authenticate(request: FastifyRequest): Promise<AdminActor | null> {
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (presented !== undefined) {
      // Hashing both sides makes the comparison constant-time whatever the presented length.
      if (timingSafeEqual(digest(presented), expected)) return AUTOMATION;
      const o = creds.tokenId?.(presented) ? await creds.byToken?.(presented) : null;
      return o ? operatorActor(o) : null;
    }
    const cookie = sessionCookieOf(request);
    if (cookie === null || !creds.bySession) return null;
    // The cookie goes with any request the browser makes to this host, a cross-site page's included; such a page
    // cannot add this header without a CORS preflight, which this listener never grants.
    const header = request.headers[CONSOLE_HEADER];
    if (header !== '1' && header !== 'refresh') return null;
    const o = await creds.bySession(cookie, header === '1');
    return o ? operatorActor(o) : null;
  }
}
