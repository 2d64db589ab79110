import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import type { OidcSettings } from '../../config/operator-settings.ts';
import type { Clock } from '../../support/clock.ts';
import type { Random } from '../../support/random.ts';
import type { AdminApi } from '../deps.ts';
import { CONSOLE_HEADER, SESSION_COOKIE, cookieOf, sessionCookieOf } from '../admin-auth.ts';
import { CONSOLE_PATH } from './console-routes.ts';

const PENDING_COOKIE = 'hush_sign_in';
/** A sign-in not completed within this is forgotten. */
const PENDING_MS = 10 * 60_000;
/** After a failed discovery, how long before asking the provider again (an anonymous request must not make Hush hammer it). */
const DISCOVERY_RETRY_MS = 10_000;

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  at: number;
}

/**
 * A sign-in begun, kept by the browser that began it (its cookie), sealed with this process's key: no table of
 * them here, which anyone could fill (they begin sign-ins without credentials) and so push out an operator's own.
 */
function pendingSeal(random: Pick<Random, 'bytes'>) {
  const key = random.bytes(32);
  const mac = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    seal: (p: Pending): string => {
      const body = Buffer.from(JSON.stringify(p)).toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    open: (value: string | null): Pending | null => {
      const [body, sig, ...rest] = (value ?? '').split('.');
      if (!body || !sig || rest.length > 0) return null;
      const given = Buffer.from(sig, 'base64url');
      const want = mac(body);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
      const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Pending;
      return typeof p.verifier === 'string' && typeof p.state === 'string' && typeof p.nonce === 'string' && typeof p.at === 'number' ? p : null;
    },
  };
}

export interface SignInOptions {
  oidc: OidcSettings;
  operators: NonNullable<AdminApi['operators']>;
  clock: Pick<Clock, 'now'>;
  /** The key sealing sign-ins in progress (one per process). */
  random: Pick<Random, 'bytes'>;
}

/**
 * docs/spec.md §12 "Named operators": the console's single sign-on, an OpenID Connect authorization-code flow with
 * PKCE, state and nonce (openid-client). A sign-in names an operator the deployment registered (by the provider's
 * subject, or a verified email on first sign-in); anyone else is refused. The session is a random cookie
 * (HttpOnly, SameSite=Strict, Secure over https) whose hash the store keeps; it ends when idle, when old, or on
 * sign-out. The provider's metadata is read once, on the first sign-in, never per anonymous request.
 */
export async function consoleSignInRoutes(app: FastifyInstance, { oidc: settings, operators, clock, random }: SignInOptions) {
  const pending = pendingSeal(random);
  const secure = settings.redirectUrl.startsWith('https:');
  let config: Promise<oidc.Configuration> | null = null;
  let failedAt = -Infinity;
  const discovered = (): Promise<oidc.Configuration> => {
    if (config) return config;
    if (clock.now() - failedAt < DISCOVERY_RETRY_MS) return Promise.reject(new Error('the identity provider did not answer a moment ago'));
    const insecure = new URL(settings.issuer).protocol === 'http:';
    config = oidc.discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined);
    config.catch(() => {
      config = null;
      failedAt = clock.now();
    });
    return config;
  };
  const cookie = (name: string, value: string, attrs: string) => `${name}=${value}; Path=/; HttpOnly; ${attrs}${secure ? '; Secure' : ''}`;
  const back = (reply: FastifyReply, outcome: string) => reply.code(303).header('location', `${CONSOLE_PATH}?signin=${outcome}`).send();

  app.get(`${CONSOLE_PATH}/sign-in`, { exposeHeadRoute: false }, async (_request, reply) => {
    let c: oidc.Configuration;
    try {
      c = await discovered();
    } catch {
      return back(reply, 'unavailable');
    }
    const p: Pending = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce(), at: clock.now() };
    const to = oidc.buildAuthorizationUrl(c, {
      redirect_uri: settings.redirectUrl,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(p.verifier),
      code_challenge_method: 'S256',
      state: p.state,
      nonce: p.nonce,
    });
    // Lax: the provider sends the browser back by a top-level navigation from its own site.
    return reply.code(303).header('set-cookie', cookie(PENDING_COOKIE, pending.seal(p), 'SameSite=Lax; Max-Age=600')).header('cache-control', 'no-store').header('location', to.href).send();
  });

  app.get(`${CONSOLE_PATH}/sign-in/callback`, { exposeHeadRoute: false }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const p = pending.open(cookieOf(request, PENDING_COOKIE));
    reply.header('set-cookie', cookie(PENDING_COOKIE, '', 'SameSite=Lax; Max-Age=0'));
    if (!p || clock.now() - p.at > PENDING_MS) return back(reply, 'expired');
    let sub: string;
    let email: string | null;
    try {
      const c = await discovered();
      const here = new URL(settings.redirectUrl);
      here.search = new URL(request.url, 'http://callback.invalid').search;
      const tokens = await oidc.authorizationCodeGrant(c, here, { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce, idTokenExpected: true });
      const claims = tokens.claims()!;
      sub = claims.sub;
      // Many providers put the email in the ID token; the others answer it at userinfo, for the same subject.
      const more = typeof claims.email === 'string' ? claims : await oidc.fetchUserInfo(c, tokens.access_token, sub);
      email = more.email_verified === true && typeof more.email === 'string' ? more.email : null;
    } catch (e) {
      request.log.warn({ err: (e as Error).message }, 'console sign-in refused by the OpenID checks');
      return back(reply, 'failed');
    }
    const who = await operators.bySignIn(sub, email);
    if (!who) {
      request.log.warn({ subject: sub }, 'console sign-in by someone who is not a registered operator');
      return back(reply, 'unknown');
    }
    const session = await operators.openSession(who.operatorId);
    reply.header('set-cookie', [cookie(PENDING_COOKIE, '', 'SameSite=Lax; Max-Age=0'), cookie(SESSION_COOKIE, session, `SameSite=Strict; Max-Age=${operators.sessionMaxS}`)]);
    return back(reply, 'ok');
  });

  app.post(`${CONSOLE_PATH}/sign-out`, async (request, reply) => {
    const value = sessionCookieOf(request);
    // A cross-site form could post here; it ends nothing without the console's header.
    if (value && request.headers[CONSOLE_HEADER] === '1') await operators.endSession(value);
    return reply.code(204).header('cache-control', 'no-store').header('set-cookie', cookie(SESSION_COOKIE, '', 'SameSite=Strict; Max-Age=0')).send();
  });
}

