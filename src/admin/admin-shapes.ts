import type { AccountStatus } from '../store/accounts-store.ts';

/** What the operator's functions answer about accounts and keys: no secrets, no hashes (but a key or secret shown once). */
export interface AdminAccount {
  accountId: string;
  name: string;
  feeCapBps: number;
  status: AccountStatus;
  feeRecipients: string[];
}

export interface AdminKey {
  keyId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface AdminAccountDetail extends AdminAccount {
  keys: AdminKey[];
}

/** Exactly the 201 body of POST /admin/v1/accounts without `success` (safe to spread into it). */
export interface CreatedAccount {
  accountId: string;
  /** The full key, shown once. */
  apiKey: string;
}

export interface CreatedKey {
  keyId: string;
  /** The full key, shown once. */
  apiKey: string;
}

/** A webhook with its new signing secret (shown once) and until when the replaced one still signs (null: none replaced). */
export interface WebhookSecret {
  url: string;
  secret: string;
  previousSecretUntil: Date | null;
}
