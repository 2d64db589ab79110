import type { Redis } from 'ioredis';
import type { HushConfig } from '../config/config.ts';
import type { Db } from '../store/db.ts';
import type { Authenticator } from '../services/authenticator.ts';
import type { QuoteService } from '../services/quote-service.ts';
import type { OrderService } from '../services/order-service.ts';
import type { DepositHintService } from '../services/deposit-hint-service.ts';
import type { StatusCache } from '../services/status-cache.ts';
import type { StrayReturnReport } from '../admin/stray-funds-service.ts';
import type { OperatorsService } from '../admin/operators-service.ts';
import type { ApprovalsService } from '../admin/approvals-service.ts';
import type { ScreeningLogFilter } from '../store/screening-log-filter.ts';
import type { ScreeningLogRow } from '../store/screening-log-store.ts';
import type { HoldFilter } from '../store/holds/hold-filter.ts';
import type { HeldAfter } from '../store/holds/list-holds.ts';
import type { HoldNotesService } from '../admin/hold-notes-service.ts';
import type { Metrics } from './metrics.ts';
import type { RecoverService } from '../admin/recover-service.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/** What the API is built from (its own file: the routes import it, and app.ts imports the routes). */
export interface ApiDeps {
  config: HushConfig;
  db: Db;
  auth: Authenticator;
  quotes: QuoteService;
  orders: OrderService;
  deposits: DepositHintService;
  statusCache: StatusCache;
  metrics: Metrics;
  redis?: Redis;
  /** Where the API reads "now" and waits: key expiries, caches, rate buckets, request timing. */
  clock: Clock;
  /** Request ids, API keys, webhook secrets, test events' ids. */
  random: Random;
  /** True once shutdown began: answers close their connection. */
  draining?(): boolean;
  /** Why payouts are paused for an operator (docs/operations.md), or null: new quotes and orders are refused meanwhile. */
  settlementPaused?(): string | null;
}

/** Operator operations the admin API (on the ops listener) exposes; implemented over the store by the admin service. */
export interface AdminApi {
  createAccount(name: string, feeCapBps?: number): Promise<{ accountId: string; apiKey: string }>;
  listAccounts(): Promise<unknown[]>;
  showAccount(accountId: string): Promise<unknown>;
  createKey(accountId: string, expiresAt?: Date): Promise<{ keyId: string; apiKey: string }>;
  revokeKey(keyId: string): Promise<unknown>;
  registerFeeRecipient(accountId: string, address: string): Promise<void>;
  unregisterFeeRecipient(accountId: string, address: string): Promise<void>;
  updateAccount(accountId: string, patch: { feeCapBps?: number; status?: 'active' | 'suspended' }): Promise<unknown>;
  setWebhook(accountId: string, url: string): Promise<{ url: string; secret: string }>;
  clearWebhook(accountId: string): Promise<void>;
  reconcile?(): Promise<{ ok: boolean; assets: unknown[] }>;
  /** docs/operations.md "store_behind_chain": the chain check's pause and its end. */
  recover?: RecoverService;
  treasury?(): Promise<{ funded: boolean; wallets: unknown[] }>;
  returnStray?(trackingId: string): Promise<StrayReturnReport>;
  /** docs/spec.md §12: the screening log, newest first, filtered (at most LOG_READ_MAX rows a read). */
  screeningLog?(opts: ScreeningLogFilter & { limit?: number }): Promise<ScreeningLogRow[]>;
  /** Per asset: what the pools hold, what is pending out, owed, held by screening, and free. */
  liquidity?(): Promise<unknown[]>;
  /** Per privacy class: who waits, and the recent releases (sizes and delays). */
  privacy?(): Promise<{ windowHours: number; classes: unknown[] }>;
  /** docs/spec.md §12: held orders, oldest first; those matching `filter`, after `after` (issue 70). */
  holds?(limit?: number, filter?: HoldFilter, after?: HeldAfter): Promise<{ heldAt: string; trackingId: string }[]>;
  /** docs/spec.md §12: held late funds and fee recipients, oldest first (issue 49); those matching `filter`, after the hold `afterId`. */
  fundHolds?(limit?: number, filter?: HoldFilter, afterId?: string): Promise<{ holdId: string }[]>;
  /** docs/spec.md §12: how many held orders and fund holds are open, in all or matching `filter` (the listings stop at their limit). */
  holdCounts?(filter?: HoldFilter): Promise<{ holds: number; fundHolds: number }>;
  /** docs/spec.md §12 "Named operators": people, their tokens and console sessions. */
  operators?: Pick<OperatorsService, 'create' | 'list' | 'update' | 'mintToken' | 'tokens' | 'revokeToken' | 'byToken' | 'bySignIn' | 'openSession' | 'bySession' | 'endSession' | 'sessionIdleS' | 'sessionMaxS'>;
  /** docs/spec.md §12 "Four eyes": every answer to a hold, and the proposals awaiting a second operator. */
  approvals?: Pick<ApprovalsService, 'awaiting' | 'resolveOrder' | 'resolveFunds' | 'approve' | 'reject'>;
  /** docs/spec.md §12 "Claims, comments, history": claims and comments on open holds, and the resolved ones. */
  holdNotes?: Pick<HoldNotesService, 'claim' | 'unclaim' | 'comment' | 'history'>;
}
