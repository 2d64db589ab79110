/**
 * Operator operations on partner accounts (docs/spec.md §3): the admin CLI calls them on the store directly,
 * and the admin HTTP API (`/admin/v1`) calls them and answers with the `*View` functions below, so
 * both paths produce the same JSON.
 *
 * Nothing here ever returns a key's secret or hash, except the freshly issued `apiKey` of
 * createAccount / createKey, which is shown once and never stored.
 */
import { isAddress } from '@solana/kit';
import { HushError } from '../domain/errors.ts';
import {
  addFeeRecipient,
  countActiveKeys,
  lastingKeys,
  findApiKey,
  getAccount as findAccount,
  insertAccount,
  insertApiKey,
  listAccounts as listAccountRecords,
  listApiKeys,
  lockAccount,
  pruneInactiveKeys,
  removeFeeRecipient,
  revokeApiKey,
  updateAccount,
  type AccountRecord,
  type AccountStatus,
} from '../store/accounts-store.ts';
import { isUniqueViolation, type Db } from '../store/db.ts';
import { MAX_PREVIOUS_SECRETS, rotateWebhookSecret, setWebhook } from '../store/webhooks-store.ts';
import { generateApiKey } from '../services/api-keys.ts';
import { AddressRules } from '../services/address-rules.ts';
import type { WebhookEgress } from '../webhooks/webhook-egress.ts';
import type { AdminAccount, AdminAccountDetail, AdminKey, CreatedAccount, CreatedKey, WebhookSecret } from './admin-shapes.ts';
import { validateWebhookUrl } from '../webhooks/webhook-url.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export { MAX_WEBHOOK_URL_LENGTH, validateWebhookUrl } from '../webhooks/webhook-url.ts';

const DEFAULT_FEE_CAP_BPS = 100;
const MAX_FEE_CAP_BPS = 1000;
const MAX_ACCOUNT_NAME_LENGTH = 100;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export const ACCOUNT_ID_PATTERN = /^acc_[1-9A-HJ-NP-Za-km-z]{16}$/;

/** `acc_` + 16 uniformly random base58 characters (~93 bits). */
export function generateAccountId(random: Random): string {
  let id = 'acc_';
  for (let i = 0; i < 16; i++) id += BASE58[random.int(58)];
  return id;
}

// Domain shapes (no secrets, no hashes): in admin-shapes.ts, which the views read too.
export type { AdminAccount, AdminAccountDetail, AdminKey, CreatedAccount, CreatedKey, WebhookSecret };

/** Standard Webhooks' format: whsec_ and the base64 of the key (24 bytes, as its reference implementation makes). */
const newWebhookSecret = (random: Random) => `whsec_${random.bytes(24).toString('base64')}`;

export interface AccountPatch {
  feeCapBps?: number;
  status?: AccountStatus;
}

// ---------------------------------------------------------------------------------------------------
// Input validation (runtime: the HTTP layer and the CLI pass what they were given)

function invalid(field: string, message: string): HushError<'INVALID_REQUEST'> {
  return new HushError('INVALID_REQUEST', message, { field });
}

function validateAccountName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw invalid('name', 'name must be a non-empty string');
  if (name.length > MAX_ACCOUNT_NAME_LENGTH) throw invalid('name', `name must be at most ${MAX_ACCOUNT_NAME_LENGTH} characters`);
  if (name.trim() !== name) throw invalid('name', 'name must not start or end with whitespace');
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid('name', 'name must not contain control characters');
  return name;
}

function validateFeeCapBps(bps: unknown): number {
  if (typeof bps !== 'number' || !Number.isInteger(bps) || bps < 0 || bps > MAX_FEE_CAP_BPS) {
    throw invalid('feeCapBps', `feeCapBps must be an integer from 0 to ${MAX_FEE_CAP_BPS}`);
  }
  return bps;
}

function validateStatus(status: unknown): AccountStatus {
  if (status !== 'active' && status !== 'suspended') throw invalid('status', 'status must be "active" or "suspended"');
  return status;
}

/**
 * An optional key expiry: a Date or an ISO 8601 string (as sent over HTTP), strictly in the future.
 * `undefined` / `null` mean "never expires".
 */
export function parseExpiresAt(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  let d: Date;
  if (value instanceof Date) d = value;
  else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) d = new Date(value);
  else throw invalid('expiresAt', 'expiresAt must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-31T00:00:00.000Z');
  if (Number.isNaN(d.getTime())) throw invalid('expiresAt', 'expiresAt is not a valid date');
  if (d.getTime() <= now.getTime()) throw invalid('expiresAt', 'expiresAt must be in the future');
  return d;
}

// ---------------------------------------------------------------------------------------------------

function toAdminAccount(a: AccountRecord): AdminAccount {
  return { accountId: a.id, name: a.name, feeCapBps: a.feeCapBps, status: a.status, feeRecipients: [...a.feeRecipients] };
}

function notFoundAccount(accountId: string): HushError<'NOT_FOUND'> {
  return new HushError('NOT_FOUND', `No account with id "${accountId}"`);
}

export interface AdminServiceOptions {
  /**
   * Called after every change to an account or its keys, with the account id: wire it to
   * `Authenticator.invalidate` so this process sees revocations and suspensions immediately.
   */
  onAccountChanged?: (accountId: string) => void;
  /** Where webhooks may point (default: public https addresses only). */
  webhookEgress?: WebhookEgress;
  /** docs/spec.md §4 rules a fee recipient must pass (default: sysvars, programs and native mints only). */
  addressRules?: AddressRules;
  /** Where key expiries are judged. */
  clock: Clock;
  /** Account ids, API keys and webhook secrets are drawn from it. */
  random: Random;
}

/** docs/spec.md §3: a revocation leaves another key active for at least this long. */
export const KEY_MUST_LAST_S = 24 * 3600;

export class AdminService {
  constructor(
    private readonly db: Db,
    private readonly options: AdminServiceOptions,
  ) {}

  private get clock(): Clock {
    return this.options.clock;
  }

  private changed(accountId: string): void {
    this.options.onAccountChanged?.(accountId);
  }

  private async requireAccount(accountId: string): Promise<AccountRecord> {
    const account = typeof accountId === 'string' && accountId.length <= 200 ? await findAccount(this.db, accountId) : null;
    if (!account) throw notFoundAccount(String(accountId));
    return account;
  }

  /** A new account (status active) with its first API key. Duplicate names are rejected. */
  async createAccount(name: string, feeCapBps: number = DEFAULT_FEE_CAP_BPS): Promise<CreatedAccount> {
    const validName = validateAccountName(name);
    const cap = validateFeeCapBps(feeCapBps);
    for (let attempt = 0; ; attempt++) {
      const accountId = generateAccountId(this.options.random);
      const key = generateApiKey(this.options.random);
      try {
        await this.db.transaction(async (tx) => {
          await insertAccount(tx, { id: accountId, name: validName, feeCapBps: cap });
          await insertApiKey(tx, { keyId: key.keyId, accountId, secretHash: key.secretHash, expiresAt: null });
        });
        return { accountId, apiKey: key.apiKey };
      } catch (e) {
        if (isUniqueViolation(e, 'accounts_name_key')) {
          throw new HushError('INVALID_REQUEST', `An account named "${validName}" already exists`, { field: 'name', reason: 'duplicate' });
        }
        // A random id collided (astronomically unlikely): draw again.
        if (attempt < 3 && (isUniqueViolation(e, 'accounts_pkey') || isUniqueViolation(e, 'api_keys_pkey'))) continue;
        throw e;
      }
    }
  }

  /**
   * Another key for the account (rotation); the secret is returned once, only its hash is stored. With
   * `limits` (a partner's own request, docs/spec.md §4): refused TOO_MANY_KEYS at `maxActiveKeys` active keys,
   * and the account's revoked or expired keys beyond the `keepInactiveKeys` newest are deleted, so creating and
   * revoking in a loop cannot grow the store. The account row is locked meanwhile: the count stays exact.
   */
  async createKey(accountId: string, expiresAt?: Date | string | null, limits?: { maxActiveKeys: number; keepInactiveKeys: number }): Promise<CreatedKey> {
    const expiry = parseExpiresAt(expiresAt, this.clock.date());
    await this.requireAccount(accountId);
    for (let attempt = 0; ; attempt++) {
      const key = generateApiKey(this.options.random);
      try {
        await this.db.transaction(async (tx) => {
          if (limits) {
            if (!(await lockAccount(tx, accountId))) throw notFoundAccount(accountId);
            if ((await countActiveKeys(tx, accountId)) >= limits.maxActiveKeys) {
              throw new HushError('TOO_MANY_KEYS', `This account has ${limits.maxActiveKeys} active keys, the most it may have; revoke one first`, { maxActiveKeys: limits.maxActiveKeys });
            }
          }
          await insertApiKey(tx, { keyId: key.keyId, accountId, secretHash: key.secretHash, expiresAt: expiry });
          if (limits) await pruneInactiveKeys(tx, accountId, limits.keepInactiveKeys);
        });
        this.changed(accountId);
        return { keyId: key.keyId, apiKey: key.apiKey };
      } catch (e) {
        if (attempt < 3 && isUniqueViolation(e, 'api_keys_pkey')) continue;
        throw e;
      }
    }
  }

  /**
   * Revokes a key: true if it was active, false if it was already revoked. Unknown key → NOT_FOUND. With
   * `scope` (a partner's own request): a key of another account is NOT_FOUND too, and LAST_ACTIVE_KEY refuses
   * what would leave the account without a key it can rely on (docs/spec.md §3): an active key is revoked only
   * while another stays active for at least KEY_MUST_LAST_S, and a key that expires (`scope.byKeyId`) cannot
   * revoke the account's last key that never does (issue 50: a stolen key made a 60 s key, revoked the
   * account's only lasting one with it, and the account was left with none a minute later). Decided under the
   * account row's lock, so concurrent revocations cannot race past it.
   */
  async revokeKey(keyId: string, scope?: { accountId: string; byKeyId?: string }): Promise<boolean> {
    const key = typeof keyId === 'string' && /^[a-z2-7]{12}$/.test(keyId) ? await findApiKey(this.db, keyId) : null;
    if (!key || (scope && key.accountId !== scope.accountId)) throw new HushError('NOT_FOUND', `No API key with id "${String(keyId)}"${scope ? ' on this account' : ''}`);
    const revoked = !scope
      ? await revokeApiKey(this.db, keyId)
      : await this.db.transaction(async (tx) => {
          await lockAccount(tx, key.accountId);
          const active = key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > this.clock.now());
          if (active) {
            const left = await lastingKeys(tx, key.accountId, keyId, KEY_MUST_LAST_S);
            if (left.lasting === 0) {
              throw new HushError('LAST_ACTIVE_KEY', `Revoking key ${keyId} would leave this account no key active for the next 24 hours; create another (without an expiry, or one at least 24 hours away) before revoking it`, { keyId });
            }
            const by = scope.byKeyId && scope.byKeyId !== keyId ? await findApiKey(tx, scope.byKeyId) : null;
            if (key.expiresAt === null && left.nonExpiring === 0 && by?.expiresAt) {
              throw new HushError('LAST_ACTIVE_KEY', `Key ${keyId} is the last key of this account that never expires; a key that expires cannot revoke it`, { keyId });
            }
          }
          return revokeApiKey(tx, keyId);
        });
    this.changed(key.accountId);
    return revoked;
  }

  /** Registers a fee-recipient address (idempotent). The address must be a valid Solana address. */
  async registerFeeRecipient(accountId: string, address: string): Promise<void> {
    if (typeof address !== 'string' || !isAddress(address)) {
      throw new HushError('INVALID_ADDRESS', 'address is not a valid Solana address', { field: 'address' });
    }
    (this.options.addressRules ?? new AddressRules()).check(address, 'address');
    await this.requireAccount(accountId);
    await addFeeRecipient(this.db, accountId, address);
    this.changed(accountId);
  }

  /** Unregisters a fee-recipient address; NOT_FOUND if the account or the registration does not exist. */
  async unregisterFeeRecipient(accountId: string, address: string): Promise<void> {
    await this.requireAccount(accountId);
    const removed = typeof address === 'string' && (await removeFeeRecipient(this.db, accountId, address));
    if (!removed) throw new HushError('NOT_FOUND', `Address "${String(address)}" is not a registered fee recipient of account "${accountId}"`);
    this.changed(accountId);
  }

  /**
   * Points the account's webhook (docs/spec.md §3, §5) at `url` with a fresh signing secret, shown once. Events
   * of transitions from now on go there (earlier undelivered ones too).
   */
  async setWebhook(accountId: string, url: unknown): Promise<WebhookSecret> {
    const checked = validateWebhookUrl(url, this.options.webhookEgress);
    const secret = newWebhookSecret(this.options.random);
    const set = await setWebhook(this.db, accountId, checked, secret);
    if (!set) throw notFoundAccount(accountId);
    if ('refused' in set) throw rotationRefused(set.refused.retryAt ?? this.clock.date(), this.clock.now());
    return { url: checked, secret, previousSecretUntil: set.previousSecretUntil };
  }

  /**
   * A new signing secret for the webhook the account has (shown once), the replaced one signing beside it for
   * 24 h, as every secret replaced in the last 24 h does; NOT_FOUND without one; RATE_LIMITED (until the oldest
   * ends) when MAX_PREVIOUS_SECRETS replaced secrets sign already.
   */
  async rotateWebhookSecret(accountId: string): Promise<WebhookSecret> {
    const secret = newWebhookSecret(this.options.random);
    const rotated = await rotateWebhookSecret(this.db, accountId, secret);
    if (!rotated) throw new HushError('NOT_FOUND', 'This account has no webhook; set one with PUT /transfer/v1/account/webhook');
    if ('refused' in rotated) throw rotationRefused(rotated.refused.retryAt ?? this.clock.date(), this.clock.now());
    return { url: rotated.url, secret, previousSecretUntil: rotated.previousSecretUntil };
  }

  /** No webhook any more: no new events, and undelivered ones are given up. */
  async clearWebhook(accountId: string): Promise<void> {
    if (!(await setWebhook(this.db, accountId, null, null))) throw notFoundAccount(accountId);
  }

  /** Applies a partial update (fee cap and/or status) after validating all of it; returns the account. */
  async updateAccount(accountId: string, patch: AccountPatch): Promise<AdminAccountDetail> {
    const p: AccountPatch = patch ?? {};
    if (p.feeCapBps === undefined && p.status === undefined) throw new HushError('INVALID_REQUEST', 'Nothing to update: give feeCapBps and/or status');
    const feeCapBps = p.feeCapBps === undefined ? undefined : validateFeeCapBps(p.feeCapBps);
    const status = p.status === undefined ? undefined : validateStatus(p.status);
    const updated = await updateAccount(this.db, accountId, { feeCapBps, status });
    if (!updated) throw notFoundAccount(accountId);
    this.changed(accountId);
    return this.getAccount(accountId);
  }

  async setFeeCap(accountId: string, bps: number): Promise<AdminAccountDetail> {
    return this.updateAccount(accountId, { feeCapBps: validateFeeCapBps(bps) });
  }

  /** Suspended accounts' keys are answered 403 ACCOUNT_SUSPENDED. Idempotent. */
  async suspend(accountId: string): Promise<AdminAccountDetail> {
    return this.updateAccount(accountId, { status: 'suspended' });
  }

  async reactivate(accountId: string): Promise<AdminAccountDetail> {
    return this.updateAccount(accountId, { status: 'active' });
  }

  async listAccounts(): Promise<AdminAccount[]> {
    return (await listAccountRecords(this.db)).map(toAdminAccount);
  }

  /** The account with its keys (ids and dates only). */
  async getAccount(accountId: string): Promise<AdminAccountDetail> {
    const account = await this.requireAccount(accountId);
    return { ...toAdminAccount(account), keys: await listApiKeys(this.db, account.id) };
  }

  /** Alias of getAccount (the name the admin routes' AdminApi uses). */
  showAccount(accountId: string): Promise<AdminAccountDetail> {
    return this.getAccount(accountId);
  }

  async listKeys(accountId: string): Promise<AdminKey[]> {
    await this.requireAccount(accountId);
    return listApiKeys(this.db, accountId);
  }
}

// Views: the exact JSON bodies of the admin HTTP API (and of the CLI's stdout), in their own file.
export * from './admin-views.ts';

/** A rotation refused because every replaced secret keeps its promised 24 h: the caller retries when the oldest ends. */
function rotationRefused(retryAt: Date, now: number): HushError {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now) / 1000));
  return new HushError(
    'RATE_LIMITED',
    `${MAX_PREVIOUS_SECRETS} replaced secrets still sign beside the current one, each for the 24 h it was promised; the oldest ends at ${retryAt.toISOString()}: rotate again after that`,
    undefined,
    { retryAfterSeconds: seconds },
  );
}
