import { Type } from 'typebox';
import { MAX_WEBHOOK_URL_LENGTH } from '../../webhooks/webhook-url.ts';
import { MAX_KEY_LIFETIME_S, MIN_KEY_LIFETIME_S } from '../../admin/partner-account.ts';
import { nullableTimestamp, success, timestamp } from './fields.ts';

/** The wire shapes of the partner's own account (self-service): its settings, its keys, its webhook. */

const KEY_ID = 'The key id: the 12 lowercase base32 characters after "hush_" in the key (hush_<keyId>_<secret>)';
const keyId = () => Type.String({ description: KEY_ID });

const keyExample = { keyId: 'k7m2xq4p3rwa', createdAt: '2026-11-21T09:12:40.318Z', expiresAt: null, revokedAt: null, active: true, current: true };
const newKeyExample = { keyId: 'b3nt5vd6ye2c', createdAt: '2026-11-21T10:00:00.000Z', expiresAt: '2027-11-21T10:00:00.000Z', revokedAt: null, active: true, current: false };
const WHSEC_EXAMPLE = 'whsec_ZXhhbXBsZSBvbmx5LCBub3Qgc2VjcmV0';
const webhookExample = { url: 'https://hooks.partner.example/hush', previousSecretExpiresAt: '2026-11-22T10:00:00.000Z' };

const ApiKeyInfo = Type.Object(
  {
    keyId: keyId(),
    createdAt: timestamp('When it was created'),
    expiresAt: nullableTimestamp('When it stops authenticating by itself; null: never'),
    revokedAt: nullableTimestamp('When it was revoked; null: not revoked'),
    active: Type.Boolean({ description: 'It authenticates now: neither revoked nor expired' }),
    current: Type.Boolean({ description: 'It is the key this request was made with' }),
  },
  { title: 'ApiKeyInfo', description: 'One API key of the account: never its secret', examples: [keyExample] },
);

const AccountWebhook = Type.Object(
  {
    url: Type.String({ description: 'Where events are posted' }),
    previousSecretExpiresAt: nullableTimestamp('While replaced signing secrets still sign beside the current one (each for 24 h after its rotation): until when the one replaced last signs; null otherwise'),
  },
  { title: 'AccountWebhook', description: "The account's webhook: never its secret", examples: [webhookExample] },
);

const rate = (kind: string) => Type.Integer({ description: `Requests per second of the ${kind} bucket (it holds twice as many)` });
const AccountRateLimits = Type.Object(
  {
    tokens: rate('tokens (GET /tokens, GET /receipt-keys)'),
    quote: rate('quote'),
    order: rate('order (orders, refresh, deposit hints, the webhook test)'),
    status: rate('status (status, receipts, orders by quote)'),
    account: rate('account (every /account operation)'),
  },
  { title: 'AccountRateLimits', description: "This account's per-key rates: the operator's defaults or the account's own", examples: [{ tokens: 50, quote: 20, order: 5, status: 50, account: 1 }] },
);

const accountExample = {
  accountId: 'acc_7Q2mWkVd9xTeRb3h',
  name: 'Example Wallet',
  feeCapBps: 100,
  feeRecipients: ['6vF9dEe8PM67Hz4J1roExQGHkqac2Uw4u97bVxspus3L'],
  webhook: webhookExample,
  keys: [keyExample, newKeyExample],
  maxActiveKeys: 10,
  rateLimits: { tokens: 50, quote: 20, order: 5, status: 50, account: 1 },
};

const Account = Type.Object(
  {
    accountId: Type.String({ description: 'The account\'s id ("acc_" and 16 base58 characters)' }),
    name: Type.String({ description: 'The name the operator gave it' }),
    feeCapBps: Type.Integer({ description: 'The highest feeBps a quote of this account may ask for' }),
    feeRecipients: Type.Array(Type.String({ description: 'A registered fee recipient (base58 address)' }), { description: 'The addresses a partner fee may be paid to (the operator registers them)' }),
    webhook: Type.Union([AccountWebhook, Type.Null()], { description: 'The webhook, or null when none is set' }),
    keys: Type.Array(ApiKeyInfo, { description: 'Its keys, oldest first, revoked and expired ones included (beyond the 20 newest of those, they are deleted when a key is created here)' }),
    maxActiveKeys: Type.Integer({ description: 'How many active keys the account may have (TOO_MANY_KEYS beyond)' }),
    rateLimits: AccountRateLimits,
  },
  { title: 'Account', description: 'The calling key\'s own account', examples: [accountExample] },
);

export const AccountResponse = Type.Object({ success: success(true), account: Account }, { title: 'AccountResponse', description: 'The account', examples: [{ success: true, account: accountExample }] });

export const WebhookUrlBody = Type.Object(
  { url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'An absolute https URL without credentials, at most 2048 characters, at a public address' }) },
  { additionalProperties: false, title: 'WebhookUrl', description: 'Where the webhook events go', examples: [{ url: webhookExample.url }] },
);

export const WebhookSecretResponse = Type.Object(
  {
    success: success(true),
    url: Type.String({ description: 'The webhook URL, as Hush will post to it' }),
    secret: Type.String({
      description: 'The new signing secret (Standard Webhooks: "whsec_" and the base64 of 24 bytes). Shown this once: store it now; Hush cannot show it again',
    }),
    previousSecretExpiresAt: nullableTimestamp('The replaced secret signs every event beside this one until then (24 h, whatever rotation follows), so a receiver can switch without missing one; null when none was replaced'),
  },
  {
    title: 'WebhookSecret',
    description: 'The webhook with its new signing secret',
    examples: [{ success: true, url: webhookExample.url, secret: WHSEC_EXAMPLE, previousSecretExpiresAt: webhookExample.previousSecretExpiresAt }],
  },
);

export const WebhookClearedResponse = Type.Object({ success: success(true) }, { title: 'WebhookCleared', description: 'The account has no webhook now', examples: [{ success: true }] });

const CreateKeyOptions = Type.Object(
  {
    expiresInSeconds: Type.Optional(
      Type.Integer({ minimum: MIN_KEY_LIFETIME_S, maximum: MAX_KEY_LIFETIME_S, description: `The key stops authenticating this many seconds from now (${MIN_KEY_LIFETIME_S} to ${MAX_KEY_LIFETIME_S}, two years); absent: never by itself` }),
    ),
  },
  { additionalProperties: false, title: 'CreateApiKey', description: 'Options of the new key', examples: [{ expiresInSeconds: 31_536_000 }] },
);
export const CreateKeyBody = Type.Union([CreateKeyOptions, Type.Null()], { description: 'The options, or no body (a key that never expires)' });

export const CreatedKeyResponse = Type.Object(
  {
    success: success(true),
    apiKey: Type.String({ description: 'The full key, hush_<keyId>_<secret>, for Authorization: Bearer. Shown this once: store it now; only a hash of its secret is kept' }),
    key: ApiKeyInfo,
  },
  {
    title: 'CreatedApiKey',
    description: 'The new key, active at once',
    examples: [{ success: true, apiKey: 'hush_b3nt5vd6ye2c_ZG9jdW1lbnRhdGlvbiBvbmx5OiBub3QgYSBrZXkgOik', key: newKeyExample }],
  },
);

export const KeyIdParams = Type.Object({ keyId: Type.String({ maxLength: 64, description: KEY_ID }) });

export const RevokedKeyResponse = Type.Object(
  { success: success(true), key: ApiKeyInfo },
  {
    title: 'RevokedApiKey',
    description: 'The key as it is now: revoked (key.current true: the key this request was made with, which authenticates nothing more)',
    examples: [{ success: true, key: { ...keyExample, revokedAt: '2026-11-21T10:05:00.000Z', active: false, current: false } }],
  },
);
