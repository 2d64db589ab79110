/**
 * docs/spec.md §12 "Named operators", the console's single sign-on under load from someone without credentials:
 * anyone who reaches the ops listener can begin sign-ins, as many as they like; an operator's own sign-in, begun
 * before them, still completes (its state is the browser's, not a slot in a table the others fill). The sign-in
 * routes by inject against a real OpenID Connect provider in this process (oidc-provider); no browser.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { consoleSignInRoutes } from '../../src/api/pages/console-sign-in-routes.ts';
import type { AdminApi } from '../../src/api/deps.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { startIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';

const CALLBACK = 'http://127.0.0.1:9/console/sign-in/callback';

describe('single sign-on, begun by strangers', () => {
  let idp: TestIdentityProvider;
  let app: FastifyInstance;

  before(async () => {
    idp = await startIdentityProvider(CALLBACK);
    app = Fastify();
    // Nobody signs in here: the callback's OpenID checks refuse the made-up code before anyone is looked up.
    const operators = { sessionMaxS: 3600, bySignIn: async () => null, openSession: async () => 'x', endSession: async () => {} } as unknown as NonNullable<AdminApi['operators']>;
    await app.register(consoleSignInRoutes, { oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, redirectUrl: CALLBACK }, operators, clock: systemClock, random: systemRandom });
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  const begin = () => app.inject({ method: 'GET', url: '/console/sign-in' });
  const pendingCookie = (r: Awaited<ReturnType<typeof begin>>) => /hush_sign_in=([^;]*)/.exec(String(r.headers['set-cookie']))![1]!;

  test("a thousand sign-ins begun by a stranger do not push out an operator's own, begun before", async () => {
    const mine = await begin();
    assert.equal(mine.statusCode, 303);
    const state = new URL(String(mine.headers.location)).searchParams.get('state')!;
    for (let i = 0; i < 1001; i++) assert.equal((await begin()).statusCode, 303);
    const back = await app.inject({ method: 'GET', url: `/console/sign-in/callback?code=made-up&state=${state}&iss=${encodeURIComponent(idp.issuer)}`, headers: { cookie: `hush_sign_in=${pendingCookie(mine)}` } });
    // Found, and refused by the provider (the code is made up): not forgotten ("expired").
    assert.equal(back.headers.location, '/console?signin=failed');
  });

  test('a sign-in state the server did not make is no sign-in', async () => {
    const mine = await begin();
    const state = new URL(String(mine.headers.location)).searchParams.get('state')!;
    for (const forged of ['', 'x', `${pendingCookie(mine)}x`, pendingCookie(mine).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))]) {
      const back = await app.inject({ method: 'GET', url: `/console/sign-in/callback?code=made-up&state=${state}`, headers: { cookie: `hush_sign_in=${forged}` } });
      assert.equal(back.headers.location, '/console?signin=expired', JSON.stringify(forged));
    }
  });
});
