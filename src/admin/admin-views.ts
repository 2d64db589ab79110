/** The exact JSON bodies of the admin HTTP API (and of the CLI's stdout), from the admin service's results. */
import type { AccountStatus } from '../store/accounts-store.ts';
import type { AdminAccount, AdminAccountDetail, AdminKey, CreatedAccount, CreatedKey } from './admin-shapes.ts';

export interface AccountJson {
  accountId: string;
  name: string;
  feeCapBps: number;
  status: AccountStatus;
  feeRecipients: string[];
}

export interface KeyJson {
  keyId: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface AccountDetailJson extends AccountJson {
  keys: KeyJson[];
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

function accountJson(a: AdminAccount): AccountJson {
  return { accountId: a.accountId, name: a.name, feeCapBps: a.feeCapBps, status: a.status, feeRecipients: [...a.feeRecipients] };
}

function keyJson(k: AdminKey): KeyJson {
  return { keyId: k.keyId, createdAt: k.createdAt.toISOString(), expiresAt: iso(k.expiresAt), revokedAt: iso(k.revokedAt) };
}

function accountDetailJson(a: AdminAccountDetail): AccountDetailJson {
  return { ...accountJson(a), keys: a.keys.map(keyJson) };
}

/** POST /admin/v1/accounts → 201 */
export function createdAccountView(r: CreatedAccount): { success: true; accountId: string; apiKey: string } {
  return { success: true, accountId: r.accountId, apiKey: r.apiKey };
}

/** POST /admin/v1/accounts/{accountId}/keys → 201 */
export function createdKeyView(r: CreatedKey): { success: true; keyId: string; apiKey: string } {
  return { success: true, keyId: r.keyId, apiKey: r.apiKey };
}

/** GET /admin/v1/accounts */
export function accountListView(accounts: AdminAccount[]): { success: true; accounts: AccountJson[] } {
  return { success: true, accounts: accounts.map(accountJson) };
}

/** GET /admin/v1/accounts/{accountId} and PATCH /admin/v1/accounts/{accountId} */
export function accountView(account: AdminAccountDetail): { success: true; account: AccountDetailJson } {
  return { success: true, account: accountDetailJson(account) };
}

/** PUT /admin/v1/accounts/{accountId}/webhook: the signing secret is shown this once. */
export function webhookView(w: { url: string; secret: string }): { success: true; url: string; secret: string } {
  return { success: true, url: w.url, secret: w.secret };
}

/** DELETE /admin/v1/keys/{keyId}, POST and DELETE of fee recipients */
export function okView(): { success: true } {
  return { success: true };
}
