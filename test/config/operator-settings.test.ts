/** docs/spec.md §12 "Named operators": the console's single sign-on and session limits as configured (src/config/operator-settings.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorSettings } from '../../src/config/operator-settings.ts';

const SSO = { HUSH_OIDC_ISSUER: 'https://id.example.com', HUSH_OIDC_CLIENT_ID: 'hush', HUSH_OIDC_CLIENT_SECRET: 's', HUSH_OIDC_REDIRECT_URL: 'https://ops.example.com/console/sign-in/callback' };

test('no provider: no single sign-on, sessions of 15 idle minutes and 12 hours', () => {
  assert.deepEqual(operatorSettings({}), { consoleIdleMinutes: 15, consoleSessionHours: 12 });
  assert.deepEqual(operatorSettings({ HUSH_CONSOLE_IDLE_MINUTES: '5', HUSH_CONSOLE_SESSION_HOURS: '8' }), { consoleIdleMinutes: 5, consoleSessionHours: 8 });
});

test('a provider: the issuer as written (its identifier is compared exactly), the client and the callback', () => {
  assert.deepEqual(operatorSettings(SSO).oidc, { issuer: 'https://id.example.com', clientId: 'hush', clientSecret: 's', redirectUrl: 'https://ops.example.com/console/sign-in/callback' });
  assert.equal(operatorSettings({ ...SSO, HUSH_OIDC_CLIENT_SECRET: '' }).oidc!.clientSecret, undefined, 'a public client');
  // A provider beside Hush on this machine may speak plain http; nothing else may.
  assert.equal(operatorSettings({ ...SSO, HUSH_OIDC_ISSUER: 'http://localhost:4000', HUSH_OIDC_REDIRECT_URL: 'http://127.0.0.1:8788/console/sign-in/callback' }).oidc!.issuer, 'http://localhost:4000');
});

test('what cannot work is refused at start, naming the variable', () => {
  const refused = (env: NodeJS.ProcessEnv, re: RegExp) => assert.throws(() => operatorSettings(env), re);
  refused({ ...SSO, HUSH_OIDC_ISSUER: 'http://id.example.com' }, /HUSH_OIDC_ISSUER must be https/);
  refused({ ...SSO, HUSH_OIDC_ISSUER: 'not a url' }, /HUSH_OIDC_ISSUER must be a URL/);
  refused({ ...SSO, HUSH_OIDC_CLIENT_ID: '' }, /HUSH_OIDC_CLIENT_ID is required/);
  refused({ ...SSO, HUSH_OIDC_REDIRECT_URL: '' }, /HUSH_OIDC_REDIRECT_URL/);
  refused({ ...SSO, HUSH_OIDC_REDIRECT_URL: 'https://ops.example.com/elsewhere' }, /must end in \/console\/sign-in\/callback/);
  refused({ HUSH_OIDC_CLIENT_ID: 'hush' }, /HUSH_OIDC_CLIENT_ID is set but HUSH_OIDC_ISSUER is not/);
  refused({ HUSH_CONSOLE_IDLE_MINUTES: '0' }, /HUSH_CONSOLE_IDLE_MINUTES/);
});
