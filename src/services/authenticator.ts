import { HushError } from '../domain/errors.ts';
import { findApiKey, getAccount, type AccountRecord, type ApiKeyRecord } from '../store/accounts-store.ts';
import type { Queryable } from '../store/db.ts';
import { timingSafeEqual } from 'node:crypto';
import { parseApiKey, secretMatches } from './api-keys.ts';
import type { Clock } from '../support/clock.ts';

export interface Caller {
  keyId: string;
  account: AccountRecord;
}

const UNAUTHORIZED = 'Missing or invalid API key';

interface Entry {
  key: ApiKeyRecord | null;
  account: AccountRecord | null;
  at: number;
  /**
   * The secret that last matched this entry's hash: hashing the presented secret was about a tenth of a
   * quote's CPU, so a repeat is compared (in constant time) with it instead. Kept no longer than the entry.
   */
  verified?: Buffer;
}

function parseBearer(authorization: string | undefined): { keyId: string; secret: string } {
  const m = /^Bearer ([!-~]{1,200})$/i.exec(authorization ?? '');
  const parsed = m ? parseApiKey(m[1]!) : null;
  if (!parsed) throw new HushError('UNAUTHORIZED', UNAUTHORIZED);
  return parsed;
}

/** Entries per cache; a full cache starts over. */
const CACHE_MAX = 10_000;

/**
 * Bearer-key authentication with a short cache: every partner request needs the key and its account,
 * and a database round trip per request would dominate the quote path. Revocation, suspension and fee
 * recipient changes therefore take effect within `ttlMs` on other processes (immediately on this one,
 * which invalidates its cache when it makes the change).
 */
export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  /**
   * Key ids the store does not know, apart: made-up keys (guessing, or a flood of them) fill this one, so
   * they never push the real partners' entries out of `cache`.
   */
  private readonly unknown = new Map<string, Entry>();
  private generation = 0;
  private readonly loading = new Map<string, Promise<Entry>>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 5000,
    private readonly clock: Clock,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Caller> {
    const parsed = parseBearer(authorization);
    return this.check(parsed, await this.lookup(parsed.keyId));
  }

  /**
   * The same answer as `authenticate` when the key's entry is cached and fresh, synchronously (undefined
   * when the store must be asked): the request path then needs no promise at all.
   */
  authenticateCached(authorization: string | undefined): Caller | undefined {
    const parsed = parseBearer(authorization);
    const hit = this.fresh(parsed.keyId);
    return hit ? this.check(parsed, hit) : undefined;
  }

  private fresh(keyId: string) {
    const hit = this.cache.get(keyId) ?? this.unknown.get(keyId);
    return hit && this.clock.now() - hit.at < this.ttlMs ? hit : undefined;
  }

  private check(parsed: { secret: string }, entry: Entry): Caller {
    const { key, account } = entry;
    const now = this.clock.now();
    if (!key || !account || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt.getTime() <= now) || !this.secretOk(parsed.secret, key, entry)) {
      throw new HushError('UNAUTHORIZED', UNAUTHORIZED);
    }
    if (account.status === 'suspended') throw new HushError('ACCOUNT_SUSPENDED', 'This account is suspended');
    return { keyId: key.keyId, account };
  }

  private secretOk(secret: string, key: ApiKeyRecord, entry: Entry): boolean {
    const presented = Buffer.from(secret);
    if (entry.verified && entry.verified.length === presented.length && timingSafeEqual(entry.verified, presented)) return true;
    if (!secretMatches(secret, key.secretHash)) return false;
    entry.verified = presented;
    return true;
  }

  private async lookup(keyId: string): Promise<Entry> {
    const hit = this.fresh(keyId);
    if (hit) return hit;
    // One store read per key at a time: when an entry expires under load, the requests that arrive
    // meanwhile wait for that read instead of each starting their own.
    const pending = this.loading.get(keyId);
    if (pending) return pending;
    const generation = this.generation;
    const read = (async () => {
      const key = await findApiKey(this.db, keyId);
      const account = key ? await getAccount(this.db, key.accountId) : null;
      const entry: Entry = { key, account, at: this.clock.now() };
      if (generation === this.generation) {
        const into = key ? this.cache : this.unknown;
        if (into.size >= CACHE_MAX) into.clear();
        // A key created since it was cached as unknown is found again at once.
        if (key) this.unknown.delete(keyId);
        into.set(keyId, entry);
      }
      return entry;
    })().finally(() => {
      if (this.loading.get(keyId) === read) this.loading.delete(keyId);
    });
    this.loading.set(keyId, read);
    return read;
  }

  /** Drops cached entries of an account (or all), after an admin change made by this process. */
  invalidate(accountId?: string): void {
    // A read in flight may predate the change: it still answers its waiters but is not cached.
    this.generation++;
    this.loading.clear();
    this.unknown.clear();
    if (accountId === undefined) return this.cache.clear();
    for (const [k, v] of this.cache) if (v.key?.accountId === accountId) this.cache.delete(k);
  }
}
