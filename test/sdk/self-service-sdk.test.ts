/**
 * The SDK's and the CLI's self-service (docs/spec.md §4, "Self-service") against a Hush on the simulator's
 * clock: `account()`, `createKey`, `revokeKey`, `setWebhook`, `rotateWebhookSecret`, `clearWebhook` with their
 * typed errors, and `hush account | keys … | webhook …` run in this process (cli-main.ts), one line per error
 * with its fix. A call that makes a secret is retried after a 429 only, never after a 503 (it may have run: a
 * second secret would end the first one's grace) — shown with a stand-in fetch, since no Hush answers 503 on
 * cue, and a sleep that keeps the waits Retry-After asked for instead of taking them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHushClient, HushApiError, type HushClient } from '../../packages/sdk/src/index.ts';
import { registerSecret, secretOf } from '../support/api-responses.ts';
import { startSimHush, type SimHush } from '../support/sim-hush.ts';
import { keyIdOf, simCli, simSdk } from '../support/sim-sdk.ts';

let h: SimHush;
before(async () => {
  h = await startSimHush({ seed: 41 });
});
after(() => h?.close());

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof HushApiError ? e.code : String(e)));

describe('SDK and CLI self-service', () => {
  test('the client: account, a key rotation, the webhook, and their errors as codes', async () => {
    const acct = await h.createAccount();
    const other = await h.createAccount();
    const client: HushClient = simSdk(h, acct.apiKey);
    const account = await client.account();
    assert.equal(account.accountId, acct.id);
    const keyId = keyIdOf(acct.apiKey);
    assert.deepEqual(account.keys.map((k) => [k.keyId, k.current, k.active]), [[keyId, true, true]]);
    assert.equal(await codeOf(client.revokeKey(keyId)), 'LAST_ACTIVE_KEY');

    // Two days: a revocation must leave a key active for at least 24 h (docs/spec.md §3).
    const created = await client.createKey({ expiresInSeconds: 172_800 });
    registerSecret(secretOf(created.apiKey));
    assert.ok(created.key.expiresAt && Date.parse(created.key.expiresAt) > h.now() + 172_000_000);
    const next = simSdk(h, created.apiKey);
    assert.equal((await next.account()).keys.find((k) => k.current)?.keyId, created.key.keyId);
    // A key that expires cannot revoke the last one that never does; that key may revoke itself.
    assert.equal(await codeOf(next.revokeKey(keyId)), 'LAST_ACTIVE_KEY');
    const revoked = await client.revokeKey(keyId);
    assert.deepEqual([revoked.keyId, revoked.active, revoked.current], [keyId, false, true]);
    assert.equal(await codeOf(client.account()), 'UNAUTHORIZED', 'the revoked key');
    assert.equal(await codeOf(next.revokeKey(keyIdOf(other.apiKey))), 'NOT_FOUND', "another account's key");
    assert.equal(await codeOf(next.createKey({ expiresInSeconds: 5 })), 'INVALID_REQUEST');

    assert.equal(await codeOf(next.rotateWebhookSecret()), 'NOT_FOUND', 'no webhook yet');
    assert.equal(await codeOf(next.setWebhook('https://10.9.8.7/hooks')), 'WEBHOOK_URL_REFUSED');
    const set = await next.setWebhook('https://hooks.partner.example/hush');
    registerSecret(set.secret);
    assert.deepEqual([set.url, set.previousSecretExpiresAt], ['https://hooks.partner.example/hush', null]);
    const rotated = await next.rotateWebhookSecret();
    registerSecret(rotated.secret);
    assert.notEqual(rotated.secret, set.secret);
    assert.ok(rotated.previousSecretExpiresAt && Date.parse(rotated.previousSecretExpiresAt) > h.now() + 86_000_000);
    assert.deepEqual((await next.account()).webhook, { url: set.url, previousSecretExpiresAt: rotated.previousSecretExpiresAt });
    await next.clearWebhook();
    assert.equal((await next.account()).webhook, null);
  });

  test('a call that makes a secret is retried after a 429, never after a 503', async () => {
    const answers: Response[] = [];
    const calls: string[] = [];
    const waits: number[] = [];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
    const refused = (code: string, status: number) => json(status, { success: false, error: { code, message: code, requestId: 'r' } }, { 'retry-after': '1' });
    const client = createHushClient({
      baseUrl: 'http://hush.invalid',
      apiKey: 'hush_aaaaaaaaaaaa_x',
      fetch: async (input: RequestInfo | URL) => (calls.push(new Request(input).url), answers.shift()!),
      sleep: async (ms) => void waits.push(ms),
    });
    const made = { success: true, url: 'https://h.example/x', secret: 'whsec_AAAA', previousSecretExpiresAt: null };
    answers.push(refused('RATE_LIMITED', 429), json(200, made));
    assert.equal((await client.rotateWebhookSecret()).secret, 'whsec_AAAA', 'retried once the bucket refilled');
    assert.equal(calls.length, 2);
    assert.deepEqual(waits, [1000], 'after the second Retry-After asked for');
    answers.push(refused('SERVICE_UNAVAILABLE', 503), json(200, made));
    assert.equal(await codeOf(client.rotateWebhookSecret()), 'SERVICE_UNAVAILABLE', 'not retried: it may have run');
    assert.equal(calls.length, 3);
    answers.length = 0;
    answers.push(refused('SERVICE_UNAVAILABLE', 503), json(200, { success: true }));
    await client.clearWebhook();
    assert.equal(calls.length, 5, 'clearing is idempotent: retried');
    assert.deepEqual(waits, [1000, 1000]);
  });

  test('the CLI: hush account, keys create/revoke, webhook set/rotate-secret/clear; errors in one line with the fix', async () => {
    const acct = await h.createAccount();
    const hush = (args: string[], apiKey: string) => simCli(h, args, { HUSH_API_KEY: apiKey });
    const shown = await hush(['account'], acct.apiKey);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).accountId, acct.id);
    const keyId = keyIdOf(acct.apiKey);

    const last = await hush(['keys', 'revoke', keyId], acct.apiKey);
    assert.equal(last.code, 1);
    assert.match(last.stderr, /^hush: LAST_ACTIVE_KEY: .* — create another key first \(hush keys create\), deploy it, then revoke this one\n$/);

    const created = await hush(['keys', 'create', '--expires-in', '172800'], acct.apiKey);
    assert.equal(created.code, 0, created.stderr);
    const { apiKey, key } = JSON.parse(created.stdout);
    registerSecret(secretOf(apiKey));
    assert.match(apiKey, /^hush_/);
    assert.match(created.stderr, /store apiKey now: it is shown this once/);
    const self = await hush(['keys', 'revoke', keyId], acct.apiKey);
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
    assert.equal((await simSdk(h, apiKey).account()).keys.find((k) => k.current)?.keyId, key.keyId);
  });
});
