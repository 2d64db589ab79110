import type { Address } from '@solana/kit';
import { balanceOfAccount, type AccountBalance } from '../../chain/chain-view.ts';
import type { ChainSubscriptions } from '../../chain/chain-subscriptions.ts';
import type { ChainView } from '../../chain/chain-view.ts';
import type { ForeignFunds } from './foreign-funds.ts';
import type { SlotClock } from './slot-clock.ts';
import { type Clock } from '../../support/clock.ts';

/** What the balances read and whom they wake: a narrow port the context builds (it does not import the context). */
export interface WatchedBalancesPort {
  readonly subscriptions: ChainSubscriptions | null;
  readonly slots: Pick<SlotClock, 'live'>;
  readonly slotMs: number;
  wake(loop: 'deposit-watch'): void;
  readonly foreign: Pick<ForeignFunds, 'origins'>;
  readonly view: Pick<ChainView, 'balances'>;
  readonly clock: Clock;
}

/** Slot advances during which a newly watched account is still read over HTTP (its subscription may not be live on the server yet). */
const HTTP_READS_AFTER_WATCH = 2;
/**
 * With the socket up, every watched account is still read over HTTP this often (one getMultipleAccounts
 * per 100 accounts): a notification the server lost without a gap in the socket is caught within it.
 */
export const SAFETY_READ_MS = 30_000;
/** Slots after a transaction mentioning a watched account during which that account is read at `processed`. */
const MENTION_SLOTS = 16;

/**
 * The `confirmed` balances of the watched deposit accounts. With the PubSub socket up, each account is
 * subscribed (accountSubscribe, and logsSubscribe for its deposit's signature) and read over HTTP only on its first slot advances; after that its
 * notifications keep it current and a slot advance costs no request. With the socket down every
 * account is read over HTTP (the slot itself is then polled boundedly, see SlotClock); after a reconnect
 * the subscriptions client reads every watched account once over HTTP (notifications of the gap are lost).
 * Beside that, one HTTP read of them all every SAFETY_READ_MS. The order loop takes the same balances
 * (current), and reads an account at `processed` only after a transaction mentioned it (mentioned).
 */
export class WatchedBalances {
  private readonly known = new Map<string, AccountBalance>();
  private readonly watches = new Map<string, { unwatch: () => void; httpReadsLeft: number }>();

  /** When a transaction (logsSubscribe, `processed`) last mentioned each watched account. */
  private readonly mentions = new Map<string, number>();
  private lastSafetyReadAt = 0;

  /** A watched account was notified funded since the watch last looked (see takeFunded). */
  private funded = false;

  constructor(private readonly ctx: WatchedBalancesPort) {}

  /** True once after a watched account was notified funded. */
  takeFunded(): boolean {
    const f = this.funded;
    this.funded = false;
    return f;
  }

  /** True while notifications keep the watched accounts current (the socket is up and slots arrive on it). */
  get live(): boolean {
    return this.ctx.subscriptions !== null && this.ctx.slots.live;
  }

  /**
   * The `confirmed` balance of a watched account as its notifications keep it, without a request;
   * undefined while the socket is down or the account is not watched, or not long enough.
   */
  current(account: string): AccountBalance | undefined {
    const w = this.watches.get(account);
    return this.live && w && w.httpReadsLeft <= 0 ? this.known.get(account) : undefined;
  }

  /** Whether a transaction mentioned the account lately: a deposit may be visible at `processed` (see MENTION_SLOTS). */
  mentioned(account: string): boolean {
    const at = this.mentions.get(account);
    return at !== undefined && this.ctx.clock.now() - at < MENTION_SLOTS * this.ctx.slotMs;
  }

  /** The balances of `accounts` at `confirmed`: from notifications where they are current, else read. */
  async read(accounts: string[]): Promise<Map<string, AccountBalance>> {
    const subs = this.ctx.subscriptions;
    const live = this.live;
    // The rare read of every account that catches a notification lost while the socket stayed up.
    const safetyRead = live && accounts.length > 0 && this.ctx.clock.now() - this.lastSafetyReadAt >= SAFETY_READ_MS;
    if (safetyRead) this.lastSafetyReadAt = this.ctx.clock.now();
    const out = new Map<string, AccountBalance>();
    const toRead: string[] = [];
    for (const a of accounts) {
      let w = this.watches.get(a);
      if (!w && subs) {
        const unwatchAccount = subs.watchAccount(a as Address, (u) => {
          const b = balanceOfAccount(u.account);
          this.known.set(a, b);
          // A deposit seen: the watch looks now rather than at the next slot (this may come after the slot's notification).
          if ((b.tokenAmount ?? 0n) > 0n) ((this.funded = true), this.ctx.wake('deposit-watch'));
        });
        // The deposit's signature as it lands (`processed`), so its origin is one getTransaction once confirmed, not a history read first.
        const unwatchTxs = subs.watchMentions(a as Address, (tx) => {
          if (tx.err !== null) return;
          this.ctx.foreign.origins.saw(a, tx.signature);
          this.mentions.set(a, this.ctx.clock.now());
        });
        const unwatch = () => (unwatchAccount(), unwatchTxs(), this.ctx.foreign.origins.forget(a), this.mentions.delete(a));
        this.watches.set(a, (w = { unwatch, httpReadsLeft: HTTP_READS_AFTER_WATCH }));
      }
      const cached = this.known.get(a);
      if (live && !safetyRead && w && w.httpReadsLeft <= 0 && cached) out.set(a, cached);
      else toRead.push(a);
      if (w && live) w.httpReadsLeft--;
    }
    if (toRead.length === 0) return out;
    const read = await this.ctx.view.balances(toRead, 'confirmed');
    for (const [a, b] of read) {
      out.set(a, b);
      // A deposit only grows a watched account: never replace a funded reading with an older empty one.
      const cached = this.known.get(a);
      if (!cached || (cached.tokenAmount ?? 0n) <= (b.tokenAmount ?? 0n)) this.known.set(a, b);
    }
    return out;
  }

  /** Stops watching every account not in `accounts` (orders no longer awaiting their deposit). */
  retain(accounts: Iterable<string>): void {
    const keep = new Set(accounts);
    for (const [a, w] of this.watches) {
      if (keep.has(a)) continue;
      w.unwatch();
      this.watches.delete(a);
      this.known.delete(a);
    }
  }

  /** Unsubscribes everything (the worker stops). */
  clear(): void {
    this.retain([]);
  }
}
