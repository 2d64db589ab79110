import type { Address, Commitment, GetMultipleAccountsApi, GetSignatureStatusesApi, Rpc, Signature } from '@solana/kit';
import { PubSubConnection, type ConnectionState, type PubSubConnectionOptions } from './pubsub-connection.ts';
import type { Timer } from '../support/clock.ts';

export type { ConnectionState } from './pubsub-connection.ts';

export interface WatchedAccount {
  lamports: bigint;
  owner: Address;
  data: Uint8Array;
  executable: boolean;
}

export interface AccountUpdate {
  address: Address;
  slot: bigint;
  /** null once the account is gone (closed, or never funded). */
  account: WatchedAccount | null;
  /** `http`: read after a reconnect or while polling (notifications of a gap are lost). */
  source: 'notification' | 'http';
}

export interface SignatureOutcome {
  signature: Signature;
  slot: bigint;
  /** The transaction error as the RPC reports it; null when it succeeded. */
  err: unknown;
  source: 'notification' | 'http';
}

export interface ChainSubscriptionsStats {
  state: ConnectionState;
  reconnects: number;
  notifications: { slot: number; account: number; signature: number };
  watchedAccounts: number;
  watchedSignatures: number;
}

export interface ChainSubscriptionsOptions extends Omit<PubSubConnectionOptions, 'onState' | 'onSubscribed'> {
  wsUrl: string;
  /** HTTP RPC for the checks after a reconnect (and while polling). */
  rpc: Rpc<GetSignatureStatusesApi & GetMultipleAccountsApi>;
  /** Commitment of account and signature watches (default confirmed). */
  commitment?: Commitment;
  /** While the socket is down, read every watch over HTTP this often (bounded polling); unset → the user polls. */
  pollWhileDownMs?: number;
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
const MAX_ACCOUNTS_PER_CALL = 100;
const MAX_SIGNATURES_PER_CALL = 256;

interface AccountWatch {
  listeners: Set<(u: AccountUpdate) => void>;
  cancel: () => void;
  lastSlot: bigint;
}

interface SignatureWatch {
  signature: Signature;
  listeners: Set<(o: SignatureOutcome) => void>;
  commitment: Commitment;
  cancel: () => void;
  done: boolean;
}

/**
 * What Hush watches on chain over PubSub: slots, accounts (added and removed as deposits come and go) and
 * the signatures it sent. Reconnects and resubscribes by itself; because notifications sent while the
 * socket was down are lost, every reconnect reads each watched account and signature once over HTTP.
 * `state` and `onStateChange` tell the user when it is down, to poll (boundedly) meanwhile.
 */
export class ChainSubscriptions {
  private readonly conn: PubSubConnection;
  private readonly commitment: Commitment;
  private readonly slotListeners = new Set<(slot: bigint) => void>();
  private cancelSlot: (() => void) | null = null;
  private readonly accounts = new Map<Address, AccountWatch>();
  /** Keyed by signature and commitment: one server subscription each, however many listeners. */
  private readonly signatures = new Map<string, SignatureWatch>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private pollTimer: Timer | null = null;
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: ChainSubscriptionsOptions) {
    this.commitment = opts.commitment ?? 'confirmed';
    this.log = opts.log ?? (() => {});
    this.conn = new PubSubConnection(opts.wsUrl, {
      ...opts,
      onState: (state) => this.onState(state),
      onSubscribed: (afterGap) => void (afterGap && this.refresh().catch((e) => this.log(`pubsub: check after reconnect failed: ${(e as Error).message}`))),
    });
  }

  start(): this {
    this.conn.start();
    return this;
  }

  get state(): ConnectionState {
    return this.conn.state;
  }

  /** Called on every state change (connected / reconnecting / closed); returns the unsubscribe. */
  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  stats(): ChainSubscriptionsStats {
    const n = this.conn.counters.notifications;
    return {
      state: this.conn.state,
      reconnects: this.conn.counters.reconnects,
      notifications: { slot: n.slotNotification ?? 0, account: n.accountNotification ?? 0, signature: n.signatureNotification ?? 0 },
      watchedAccounts: this.accounts.size,
      watchedSignatures: this.signatures.size,
    };
  }

  /** Slot updates (processed slots, as the validator sends them). */
  onSlot(listener: (slot: bigint) => void): () => void {
    this.slotListeners.add(listener);
    this.cancelSlot ??= this.conn.subscribe({
      method: 'slotSubscribe',
      params: [],
      onNotification: (r) => {
        const slot = (r as { slot: bigint }).slot;
        for (const l of this.slotListeners) l(slot);
      },
    });
    return () => {
      this.slotListeners.delete(listener);
      if (this.slotListeners.size > 0 || !this.cancelSlot) return;
      this.cancelSlot();
      this.cancelSlot = null;
    };
  }

  /** Watches an account (one server subscription per address, however many listeners); returns the unwatch. */
  watchAccount(address: Address, listener: (u: AccountUpdate) => void): () => void {
    let w = this.accounts.get(address);
    if (!w) {
      const watch: AccountWatch = { listeners: new Set(), cancel: () => {}, lastSlot: -1n };
      watch.cancel = this.conn.subscribe({
        method: 'accountSubscribe',
        params: [address, { commitment: this.commitment, encoding: 'base64' }],
        onNotification: (r) => {
          const { context, value } = r as { context: { slot: bigint }; value: RawAccount | null };
          this.deliverAccount(address, watch, context.slot, value, 'notification');
        },
        onRefused: (e) => {
          // Refused for good (bad params): forget it, or every HTTP check would carry it and fail too.
          this.log(`pubsub: accountSubscribe ${address} refused: ${e.message}`);
          if (this.accounts.get(address) === watch) this.accounts.delete(address);
        },
      });
      this.accounts.set(address, (w = watch));
    }
    w.listeners.add(listener);
    const watch = w;
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size > 0 || this.accounts.get(address) !== watch) return;
      this.accounts.delete(address);
      watch.cancel();
    };
  }

  /**
   * The transactions that mention `address` (logsSubscribe), as they reach `commitment`; returns the
   * unwatch. Best effort: nothing replays what a gap in the socket lost.
   */
  watchMentions(address: Address, listener: (tx: { signature: string; err: unknown }) => void, commitment: Commitment = 'processed'): () => void {
    return this.conn.subscribe({
      method: 'logsSubscribe',
      params: [{ mentions: [address] }, { commitment }],
      onNotification: (r) => {
        const { value } = r as { value: { signature: string; err: unknown } };
        listener({ signature: value.signature, err: value.err });
      },
      onRefused: (e) => this.log(`pubsub: logsSubscribe ${address} refused: ${e.message}`),
    });
  }

  /** Calls `listener` once, when the signature reaches the commitment (or has already); returns the unwatch. */
  watchSignature(signature: Signature, listener: (o: SignatureOutcome) => void, commitment: Commitment = this.commitment): () => void {
    const key = `${signature}:${commitment}`;
    let w = this.signatures.get(key);
    if (!w) {
      const watch: SignatureWatch = { signature, listeners: new Set(), commitment, cancel: () => {}, done: false };
      const cancelSub = this.conn.subscribe({
        method: 'signatureSubscribe',
        params: [signature, { commitment }],
        oneShot: true,
        onNotification: (r) => {
          const { context, value } = r as { context: { slot: bigint }; value: { err: unknown } | string };
          if (typeof value === 'string') return; // receivedSignature: not requested, not an outcome
          this.deliverSignature(watch, { signature, slot: context.slot, err: value.err, source: 'notification' });
        },
        onRefused: (e) => {
          this.log(`pubsub: signatureSubscribe ${signature} refused: ${e.message}`);
          watch.cancel();
        },
      });
      watch.cancel = () => {
        watch.done = true;
        cancelSub();
        if (this.signatures.get(key) === watch) this.signatures.delete(key);
      };
      this.signatures.set(key, (w = watch));
    }
    w.listeners.add(listener);
    const watch = w;
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size === 0) watch.cancel();
    };
  }

  /**
   * Reads every watched account and signature once over HTTP and delivers what changed: run after each
   * reconnect, and on a timer while the socket is down when `pollWhileDownMs` is set.
   */
  async refresh(): Promise<void> {
    const watches = [...this.signatures.values()];
    for (let i = 0; i < watches.length; i += MAX_SIGNATURES_PER_CALL) {
      const chunk = watches.slice(i, i + MAX_SIGNATURES_PER_CALL);
      const { value } = await this.opts.rpc.getSignatureStatuses(chunk.map((w) => w.signature)).send();
      value.forEach((st, j) => {
        const w = chunk[j]!;
        if (!st || !st.confirmationStatus || RANK[st.confirmationStatus] < RANK[w.commitment]) return;
        this.deliverSignature(w, { signature: w.signature, slot: st.slot, err: st.err, source: 'http' });
      });
    }
    const addresses = [...this.accounts.keys()];
    for (let i = 0; i < addresses.length; i += MAX_ACCOUNTS_PER_CALL) {
      const chunk = addresses.slice(i, i + MAX_ACCOUNTS_PER_CALL);
      const { context, value } = await this.opts.rpc.getMultipleAccounts(chunk, { commitment: this.commitment, encoding: 'base64' }).send();
      value.forEach((acc, j) => {
        const w = this.accounts.get(chunk[j]!);
        if (w) this.deliverAccount(chunk[j]!, w, context.slot, acc as RawAccount | null, 'http');
      });
    }
  }

  async close(): Promise<void> {
    this.stopPolling();
    for (const w of this.signatures.values()) w.done = true;
    this.signatures.clear();
    this.accounts.clear();
    this.slotListeners.clear();
    await this.conn.close();
  }

  private onState(state: ConnectionState): void {
    if (state === 'reconnecting' && this.opts.pollWhileDownMs && !this.pollTimer) {
      this.pollTimer = this.opts.clock.every(this.opts.pollWhileDownMs, () => void this.refresh().catch((e) => this.log(`pubsub: poll while down failed: ${(e as Error).message}`)));
    }
    if (state !== 'reconnecting') this.stopPolling();
    for (const l of this.stateListeners) l(state);
  }

  private stopPolling(): void {
    this.pollTimer?.cancel();
    this.pollTimer = null;
  }

  private deliverAccount(address: Address, w: AccountWatch, slot: bigint, raw: RawAccount | null, source: AccountUpdate['source']): void {
    // An HTTP read can be older than a notification already delivered: never go back in time.
    if (slot < w.lastSlot || this.accounts.get(address) !== w) return;
    w.lastSlot = slot;
    const update: AccountUpdate = { address, slot, account: decodeAccount(raw), source };
    for (const l of [...w.listeners]) l(update);
  }

  private deliverSignature(w: SignatureWatch, outcome: SignatureOutcome): void {
    if (w.done) return;
    w.cancel();
    for (const l of w.listeners) l(outcome);
  }
}

type RawAccount = { lamports: bigint; owner: Address; data: [string, string] | string; executable: boolean };

/** The validator reports a closed account as an empty system account: for a watcher, that is "gone". */
function decodeAccount(raw: RawAccount | null): WatchedAccount | null {
  if (!raw || raw.lamports === 0n) return null;
  const data = Array.isArray(raw.data) ? new Uint8Array(Buffer.from(raw.data[0], 'base64')) : new Uint8Array(0);
  return { lamports: BigInt(raw.lamports), owner: raw.owner, data, executable: raw.executable };
}
