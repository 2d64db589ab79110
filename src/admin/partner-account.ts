/**
 * A partner's own account, as its key may see and change it (docs/spec.md §4, "Self-service"): the settings,
 * its keys (never a secret or hash), its webhook (never the secret, but the new one once when it changes).
 * Every change goes through the operator's AdminService, so a partner's key or webhook is made exactly as
 * the operator's is (the same URL rules, the same 24 h rotation); what is the partner's own is the scope
 * (only its account), a cap on active keys, and that it cannot revoke its last active key.
 */
import type { RateLimits } from '../config/config.ts';
import { HushError } from '../domain/errors.ts';
import type { Caller } from '../services/authenticator.ts';
import { getAccount, listApiKeys } from '../store/accounts-store.ts';
import type { Queryable } from '../store/db.ts';
import { webhookSettings } from '../store/webhooks-store.ts';
import type { AdminService, WebhookSecret } from './admin-service.ts';
import type { Clock } from '../support/clock.ts';

/** Active keys an account may have through self-service (TOO_MANY_KEYS beyond). */
export const MAX_ACTIVE_KEYS = 10;
/** Revoked or expired keys kept per account for its listing; older ones are deleted when the partner creates a key. */
export const KEEP_INACTIVE_KEYS = 20;
export const MIN_KEY_LIFETIME_S = 60;
export const MAX_KEY_LIFETIME_S = 2 * 365 * 86_400;

export interface ApiKeyJson {
  keyId: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  active: boolean;
  current: boolean;
}

export interface AccountJson {
  accountId: string;
  name: string;
  feeCapBps: number;
  feeRecipients: string[];
  webhook: { url: string; previousSecretExpiresAt: string | null } | null;
  keys: ApiKeyJson[];
  maxActiveKeys: number;
  rateLimits: RateLimits;
}

export interface WebhookSecretJson {
  url: string;
  secret: string;
  previousSecretExpiresAt: string | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

function keyJson(k: { keyId: string; createdAt: Date; expiresAt: Date | null; revokedAt: Date | null }, caller: Caller, now: number): ApiKeyJson {
  const active = k.revokedAt === null && (k.expiresAt === null || k.expiresAt.getTime() > now);
  return { keyId: k.keyId, createdAt: k.createdAt.toISOString(), expiresAt: iso(k.expiresAt), revokedAt: iso(k.revokedAt), active, current: k.keyId === caller.keyId };
}

const secretJson = (w: WebhookSecret): WebhookSecretJson => ({ url: w.url, secret: w.secret, previousSecretExpiresAt: iso(w.previousSecretUntil) });

export class PartnerAccountService {
  constructor(
    private readonly db: Queryable,
    private readonly admin: AdminService,
    /** The operator's per-key rates (HUSH_RATE_LIMITS), which an account's own override. */
    private readonly defaultRates: RateLimits,
    private readonly clock: Clock,
  ) {}

  /** The account as the store has it now (not the authentication cache's copy). */
  async view(caller: Caller): Promise<AccountJson> {
    const id = caller.account.id;
    const [account, keys, webhook] = await Promise.all([getAccount(this.db, id), listApiKeys(this.db, id), webhookSettings(this.db, id)]);
    // Deleted between the authentication and now: as if the key were unknown.
    if (!account) throw new HushError('UNAUTHORIZED', 'Missing or invalid API key');
    const own = account.rateLimits ?? {};
    const rateLimits = Object.fromEntries(Object.entries(this.defaultRates).map(([kind, rate]) => [kind, own[kind as keyof RateLimits] ?? rate])) as unknown as RateLimits;
    return {
      accountId: account.id,
      name: account.name,
      feeCapBps: account.feeCapBps,
      feeRecipients: account.feeRecipients,
      webhook: webhook ? { url: webhook.url, previousSecretExpiresAt: iso(webhook.previousSecretUntil) } : null,
      keys: keys.map((k) => keyJson(k, caller, this.clock.now())),
      maxActiveKeys: MAX_ACTIVE_KEYS,
      rateLimits,
    };
  }

  async setWebhook(caller: Caller, url: string): Promise<WebhookSecretJson> {
    return secretJson(await this.admin.setWebhook(caller.account.id, url));
  }

  async rotateWebhookSecret(caller: Caller): Promise<WebhookSecretJson> {
    return secretJson(await this.admin.rotateWebhookSecret(caller.account.id));
  }

  async clearWebhook(caller: Caller): Promise<void> {
    await this.admin.clearWebhook(caller.account.id);
  }

  /** A new key of the caller's account: its full value once, and its listing. */
  async createKey(caller: Caller, expiresInSeconds?: number): Promise<{ apiKey: string; key: ApiKeyJson }> {
    const expiresAt = expiresInSeconds === undefined ? null : new Date(this.clock.now() + expiresInSeconds * 1000);
    const created = await this.admin.createKey(caller.account.id, expiresAt, { maxActiveKeys: MAX_ACTIVE_KEYS, keepInactiveKeys: KEEP_INACTIVE_KEYS });
    return { apiKey: created.apiKey, key: await this.keyOf(caller, created.keyId) };
  }

  /** Revokes one of the caller's account's keys (the caller's own too: `current` then says so). */
  async revokeKey(caller: Caller, keyId: string): Promise<ApiKeyJson> {
    await this.admin.revokeKey(keyId, { accountId: caller.account.id, byKeyId: caller.keyId });
    return this.keyOf(caller, keyId);
  }

  private async keyOf(caller: Caller, keyId: string): Promise<ApiKeyJson> {
    const key = (await listApiKeys(this.db, caller.account.id)).find((k) => k.keyId === keyId);
    if (!key) throw new HushError('NOT_FOUND', `No API key with id "${keyId}" on this account`);
    return keyJson(key, caller, this.clock.now());
  }
}
