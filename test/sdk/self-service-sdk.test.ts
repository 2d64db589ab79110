/**
 * The SDK's and the CLI's self-service (docs/spec.md §4, "Self-service") against a real Hush: `account()`,
 * `createKey`, `revokeKey`, `setWebhook`, `rotateWebhookSecret`, `clearWebhook` with their typed errors, and
 * `hush account | keys … | webhook …` in their own process, one line per error with its fix. A call that
 * makes a secret is retried after a 429 only, never after a 503 (it may have run: a second secret would end
 * the first one's grace) — shown with a stand-in fetch, since no real Hush answers 503 on cue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHushClient, HushApiError, type HushClient } from '../../packages/sdk/src/index.ts';
import { runPartnerCli } from '../support/partner-cli.ts';
import { registerSecret, secretOf, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';

let t: TestHush;
before(async () => {
  t = await startTestHush();
});
after(() => t?.close());

const sdk = (apiKey: string): HushClient => createHushClient({ baseUrl: t.url, apiKey });
const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof HushApiError ? e.code : String(e)));

/** The partner CLI in its own process. */
function hush(args: string[], apiKey: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runPartnerCli(args, { HUSH_URL: t.url, HUSH_API_KEY: apiKey });
}

describe('SDK and CLI self-service', () => {
  test('the client: account, a key rotation, the webhook, and their errors as codes', async () => {
    const acct: TestAccount = await t.createAccount();
    const other = await t.createAccount();
    const client = sdk(acct.apiKey);
    const account = await client.account();
    assert.equal(account.accountId, acct.id);
    assert.deepEqual(account.keys.map((k) => [k.keyId, k.current, k.active]), [[acct.keyId, true, true]]);
    assert.equal(await codeOf(client.revokeKey(acct.keyId)), 'LAST_ACTIVE_KEY');

    // Two days: a revocation must leave a key active for at least 24 h (docs/spec.md §3).
    const created = await client.createKey({ expiresInSeconds: 172_800 });
    registerSecret(secretOf(created.apiKey));
    assert.ok(created.key.expiresAt && Date.parse(created.key.expiresAt) > Date.now() + 172_000_000);
    const next = sdk(created.apiKey);
    assert.equal((await next.account()).keys.find((k) => k.current)?.keyId, created.key.keyId);
    // A key that expires cannot revoke the last one that never does; that key may revoke itself.
    assert.equal(await codeOf(next.revokeKey(acct.keyId)), 'LAST_ACTIVE_KEY');
    const revoked = await client.revokeKey(acct.keyId);
    assert.deepEqual([revoked.keyId, revoked.active, revoked.current], [acct.keyId, false, true]);
    assert.equal(await codeOf(client.account()), 'UNAUTHORIZED', 'the revoked key');
    assert.equal(await codeOf(next.revokeKey(other.keyId)), 'NOT_FOUND', "another account's key");
    assert.equal(await codeOf(next.createKey({ expiresInSeconds: 5 })), 'INVALID_REQUEST');

    assert.equal(await codeOf(next.rotateWebhookSecret()), 'NOT_FOUND', 'no webhook yet');
    assert.equal(await codeOf(next.setWebhook('https://10.9.8.7/hooks')), 'WEBHOOK_URL_REFUSED');
    const set = await next.setWebhook('https://hooks.partner.example/hush');
    registerSecret(set.secret);
    assert.deepEqual([set.url, set.previousSecretExpiresAt], ['https://hooks.partner.example/hush', null]);
    const rotated = await next.rotateWebhookSecret();
    registerSecret(rotated.secret);
    assert.notEqual(rotated.secret, set.secret);
    assert.ok(rotated.previousSecretExpiresAt && Date.parse(rotated.previousSecretExpiresAt) > Date.now() + 86_000_000);
    assert.deepEqual((await next.account()).webhook, { url: set.url, previousSecretExpiresAt: rotated.previousSecretExpiresAt });
    await next.clearWebhook();
    assert.equal((await next.account()).webhook, null);
  });

  test('a call that makes a secret is retried after a 429, never after a 503', async () => {
    const answers: Response[] = [];
    const calls: string[] = [];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
    const refused = (code: string, status: number) => json(status, { success: false, error: { code, message: code, requestId: 'r' } }, { 'retry-after': '1' });
    const client = createHushClient({
      baseUrl: 'http://hush.invalid',
      apiKey: 'hush_aaaaaaaaaaaa_x',
      fetch: async (input: RequestInfo | URL) => (calls.push(new Request(input).url), answers.shift()!),
    });
    const made = { success: true, url: 'https://h.example/x', secret: 'whsec_AAAA', previousSecretExpiresAt: null };
    answers.push(refused('RATE_LIMITED', 429), json(200, made));
    assert.equal((await client.rotateWebhookSecret()).secret, 'whsec_AAAA', 'retried once the bucket refilled');
    assert.equal(calls.length, 2);
    answers.push(refused('SERVICE_UNAVAILABLE', 503), json(200, made));
    assert.equal(await codeOf(client.rotateWebhookSecret()), 'SERVICE_UNAVAILABLE', 'not retried: it may have run');
    assert.equal(calls.length, 3);
    answers.length = 0;
    answers.push(refused('SERVICE_UNAVAILABLE', 503), json(200, { success: true }));
    await client.clearWebhook();
    assert.equal(calls.length, 5, 'clearing is idempotent: retried');
  });

  test('the CLI: hush account, keys create/revoke, webhook set/rotate-secret/clear; errors in one line with the fix', { timeout: 60_000 }, async () => {
    const acct = await t.createAccount();
    const shown = await hush(['account'], acct.apiKey);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).accountId, acct.id);

    const last = await hush(['keys', 'revoke', acct.keyId], acct.apiKey);
    assert.equal(last.code, 1);
    assert.match(last.stderr, /^hush: LAST_ACTIVE_KEY: .* — create another key first \(hush keys create\), deploy it, then revoke this one\n$/);

    const created = await hush(['keys', 'create', '--expires-in', '172800'], acct.apiKey);
    assert.equal(created.code, 0, created.stderr);
    const { apiKey, key } = JSON.parse(created.stdout);
    assert.match(apiKey, /^hush_/);
    assert.match(created.stderr, /store apiKey now: it is shown this once/);
    const self = await hush(['keys', 'revoke', acct.keyId], acct.apiKey);
    assert.equal(self.code, 0, self.stderr);
    assert.equal(JSON.parse(self.stdout).current, true);
    assert.match(self.stderr, /that was the key in HUSH_API_KEY: it no longer authenticates/);

    const refused = await hush(['webhook', 'set', 'https://10.0.0.1/hooks'], apiKey);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^hush: WEBHOOK_URL_REFUSED: url is not allowed: .* — give an https URL at a public address/);
    const set = await hush(['webhook', 'set', 'https://hooks.partner.example/hush'], apiKey);
    assert.equal(set.code, 0, set.stderr);
    assert.match(JSON.parse(set.stdout).secret, /^whsec_/);
    assert.match(set.stderr, /store the secret now: it is shown this once\. Check the receiver with: hush webhook test/);
    const rotated = await hush(['webhook', 'rotate-secret'], apiKey);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stderr, /the previous secret keeps signing beside it until \d{4}-/);
    assert.equal((await hush(['webhook', 'clear'], apiKey)).code, 0);
    const none = await hush(['webhook', 'rotate-secret'], apiKey);
    assert.match(none.stderr, /^hush: NOT_FOUND: .* — set the webhook first: hush webhook set https:\/\/…\n$/);
    const usage = await hush(['keys', 'rotate'], apiKey);
    assert.equal(usage.code, 2);
    assert.equal((await sdk(apiKey).account()).keys.find((k) => k.current)?.keyId, key.keyId);
  });
});
