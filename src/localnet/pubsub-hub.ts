import { encodeAccount, type AccountEncoding } from './account-encoding.ts';
import { matchesFilters, type AccountFilter } from './account-filters.ts';
import type { AccountState, ChainObserver, Commitment, LandedTransaction, LocalChain } from './local-chain.ts';
import { RpcError, type Config } from './rpc-params.ts';
import { toJson } from './rpc-server.ts';
import { address } from '@solana/kit';

/** One WebSocket as the hub sees it: somewhere to send a text frame. */
export interface PubSubClient {
  send(text: string): void;
}

interface Base {
  id: number;
  client: PubSubClient;
}
/** A notification this soon after its subscription's reply could reach a client before it listens (kit polls its iterator). */
const SUBSCRIBE_GRACE_MS = 50;

export type SlotSub = Base & { kind: 'slot' };
export type AccountSub = Base & { kind: 'account'; address: string; commitment: Commitment; encoding: AccountEncoding; cfg: Config };
export type SignatureSub = Base & { kind: 'signature'; signature: string; commitment: Commitment; received: boolean };
export type LogsSub = Base & { kind: 'logs'; mentions: string | null; commitment: Commitment };
export type ProgramSub = Base & { kind: 'program'; program: string; commitment: Commitment; encoding: AccountEncoding; cfg: Config; filters: AccountFilter[] };
export type RootSub = Base & { kind: 'root' };
export type Sub = SlotSub | AccountSub | SignatureSub | LogsSub | ProgramSub | RootSub;
export type NewSub = Sub extends infer S ? (S extends Sub ? Omit<S, 'id' | 'client'> : never) : never;

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
/** What a real validator sends for an account that no longer exists: the default account. */
const NO_ACCOUNT: AccountState = { lamports: 0n, data: new Uint8Array(0), owner: address('11111111111111111111111111111111'), executable: false, rentEpoch: 0n };

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function deleteFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/**
 * The subscriptions of every socket and the notifications the chain's slots and transactions cause, with
 * a validator's semantics: an account or log notification at a commitment is sent when the slot that
 * changed it reaches that commitment; a signature notification is one-shot and also covers signatures that
 * landed before the subscription (Agave checks the status cache on every commitment update).
 */
export class PubSubHub implements ChainObserver {
  private nextId = 0;
  private readonly byId = new Map<number, Sub>();
  private readonly byClient = new Map<PubSubClient, Set<number>>();
  private readonly slotSubs = new Set<SlotSub>();
  private readonly accountSubs = new Map<string, Set<AccountSub>>();
  private readonly signatureSubs = new Map<string, Set<SignatureSub>>();
  /** Signature subscriptions no slot has passed since (checkSignatures leaves them for the next one). */
  private readonly firstTick = new Set<SignatureSub>();
  /** When each signature subscription not yet at its commitment was made: one a few ms before a tick waits for the next. */
  private readonly subscribedAt = new Map<SignatureSub, number>();
  private readonly logsAll = new Set<LogsSub>();
  private readonly logsMentions = new Map<string, Set<LogsSub>>();
  private readonly programSubs = new Map<string, Set<ProgramSub>>();
  private readonly rootSubs = new Set<RootSub>();
  private lastRoot = -1n;
  /** Transactions of recent slots, kept only while account or log subscriptions exist (for confirmed/finalized). */
  private readonly recent = new Map<bigint, LandedTransaction[]>();
  notificationsSent = 0;

  constructor(
    private readonly chain: LocalChain,
    private readonly maxPerClient = 50_000,
  ) {}

  get subscriptionCount(): number {
    return this.byId.size;
  }

  get clientCount(): number {
    return this.byClient.size;
  }

  add(client: PubSubClient, spec: NewSub): number {
    const mine = this.byClient.get(client);
    if (mine && mine.size >= this.maxPerClient) throw new RpcError(-32602, `Invalid Request: too many subscriptions on this connection (max ${this.maxPerClient})`);
    const sub = { ...spec, id: this.nextId++, client } as Sub;
    this.byId.set(sub.id, sub);
    addTo(this.byClient, client, sub.id);
    if (sub.kind === 'slot') this.slotSubs.add(sub);
    else if (sub.kind === 'account') addTo(this.accountSubs, sub.address, sub);
    else if (sub.kind === 'signature') {
      addTo(this.signatureSubs, sub.signature, sub);
      // Only a signature already at its commitment, or subscribed just before a tick, waits a tick (see
      // checkSignatures): one that reaches it later is notified at the tick it does, as a validator notifies it,
      // not a slot after (a payout's confirmation reached its worker two slots late).
      const st = this.chain.signatureStatus(sub.signature);
      if (st && RANK[st.confirmationStatus] >= RANK[sub.commitment]) this.firstTick.add(sub);
      else this.subscribedAt.set(sub, this.chain.clock.now());
    }
    else if (sub.kind === 'program') addTo(this.programSubs, sub.program, sub);
    else if (sub.kind === 'root') this.rootSubs.add(sub);
    else if (sub.mentions === null) this.logsAll.add(sub);
    else addTo(this.logsMentions, sub.mentions, sub);
    return sub.id;
  }

  /** Removes a subscription of this client and this kind; false when there is none (the caller answers an error). */
  remove(client: PubSubClient, id: number, kind: Sub['kind']): boolean {
    const sub = this.byId.get(id);
    if (!sub || sub.client !== client || sub.kind !== kind) return false;
    this.drop(sub);
    return true;
  }

  dropClient(client: PubSubClient): void {
    const ids = this.byClient.get(client);
    if (!ids) return;
    for (const id of [...ids]) this.drop(this.byId.get(id)!);
  }

  private drop(sub: Sub): void {
    this.byId.delete(sub.id);
    deleteFrom(this.byClient, sub.client, sub.id);
    if (sub.kind === 'slot') this.slotSubs.delete(sub);
    else if (sub.kind === 'account') deleteFrom(this.accountSubs, sub.address, sub);
    else if (sub.kind === 'signature') (deleteFrom(this.signatureSubs, sub.signature, sub), this.firstTick.delete(sub), this.subscribedAt.delete(sub));
    else if (sub.kind === 'program') deleteFrom(this.programSubs, sub.program, sub);
    else if (sub.kind === 'root') this.rootSubs.delete(sub);
    else if (sub.mentions === null) this.logsAll.delete(sub);
    else deleteFrom(this.logsMentions, sub.mentions, sub);
    if (!this.keepsHistory) this.recent.clear();
  }

  private notify(sub: Sub, method: string, result: unknown): void {
    this.notificationsSent++;
    sub.client.send(toJson({ jsonrpc: '2.0', method, params: { result, subscription: sub.id } }));
  }

  /** Account, program and log subscriptions need the transactions of recent slots (for confirmed/finalized). */
  private get keepsHistory(): boolean {
    return this.accountSubs.size > 0 || this.programSubs.size > 0 || this.logsAll.size > 0 || this.logsMentions.size > 0;
  }

  private encode(sub: AccountSub | ProgramSub, account: AccountState | null): unknown {
    try {
      return encodeAccount(this.chain, account ?? NO_ACCOUNT, sub.encoding, sub.cfg);
    } catch (e) {
      // base58 of data over 128 bytes: the validator sends the account with an error text as its data.
      if (!(e instanceof RpcError)) throw e;
      const v = encodeAccount(this.chain, account ?? NO_ACCOUNT, 'base64', {});
      return { ...v, data: ['error: data too large for bs58 encoding', 'base58'] };
    }
  }

  onTransaction(tx: LandedTransaction): void {
    if (this.byId.size === 0) return;
    const keepsHistory = this.keepsHistory;
    if (keepsHistory) {
      let list = this.recent.get(tx.slot);
      if (!list) this.recent.set(tx.slot, (list = []));
      list.push(tx);
    }
    const sigSubs = this.signatureSubs.get(tx.signature);
    if (sigSubs) {
      for (const sub of [...sigSubs]) {
        if (sub.received) this.notify(sub, 'signatureNotification', { context: { slot: tx.slot }, value: 'receivedSignature' });
        if (sub.commitment === 'processed') {
          this.notify(sub, 'signatureNotification', { context: { slot: tx.slot }, value: { err: tx.err } });
          this.drop(sub);
        }
      }
    }
    if (keepsHistory) {
      this.notifyLogs(tx, 'processed', tx.slot);
      this.notifyAccounts([tx], 'processed', tx.slot);
    }
  }

  onSlot(slot: bigint): void {
    if (this.byId.size === 0) return;
    for (const sub of this.slotSubs) {
      this.notify(sub, 'slotNotification', { parent: slot > 0n ? slot - 1n : 0n, root: this.chain.commitmentSlot('finalized'), slot });
    }
    const confirmed = this.chain.commitmentSlot('confirmed');
    const finalized = this.chain.commitmentSlot('finalized');
    if (finalized !== this.lastRoot) {
      this.lastRoot = finalized;
      for (const sub of this.rootSubs) this.notify(sub, 'rootNotification', finalized);
    }
    if (slot > 0n) this.notifySlot(confirmed, 'confirmed');
    if (finalized > 0n) this.notifySlot(finalized, 'finalized');
    for (const s of this.recent.keys()) if (s <= finalized) this.recent.delete(s);
    this.checkSignatures();
  }

  /** Account and log notifications for the transactions of a slot that just reached `commitment`. */
  private notifySlot(slot: bigint, commitment: Commitment): void {
    const txs = this.recent.get(slot);
    if (!txs) return;
    for (const tx of txs) this.notifyLogs(tx, commitment, slot);
    this.notifyAccounts(txs, commitment, slot);
  }

  private notifyLogs(tx: LandedTransaction, commitment: Commitment, slot: bigint): void {
    if (this.logsAll.size === 0 && this.logsMentions.size === 0) return;
    const value = { signature: tx.signature, err: tx.err, logs: tx.logs };
    for (const sub of this.logsAll) if (sub.commitment === commitment) this.notify(sub, 'logsNotification', { context: { slot }, value });
    if (this.logsMentions.size === 0) return;
    for (const key of new Set(tx.accountKeys)) {
      const subs = this.logsMentions.get(key);
      if (subs) for (const sub of subs) if (sub.commitment === commitment) this.notify(sub, 'logsNotification', { context: { slot }, value });
    }
  }

  /** One notification per watched account written by these transactions, with its state at `commitment`. */
  private notifyAccounts(txs: LandedTransaction[], commitment: Commitment, slot: bigint): void {
    if (this.programSubs.size > 0) this.notifyPrograms(txs, commitment, slot);
    if (this.accountSubs.size === 0) return;
    const written = new Set<string>();
    for (const tx of txs) tx.accountKeys.forEach((k, i) => tx.writable[i] && this.accountSubs.has(k) && written.add(k));
    for (const address of written) {
      const subs = [...this.accountSubs.get(address)!].filter((s) => s.commitment === commitment);
      if (subs.length === 0) continue;
      const account = this.chain.getAccount(address, commitment);
      for (const sub of subs) this.notify(sub, 'accountNotification', { context: { slot }, value: this.encode(sub, account) });
    }
  }

  /** One notification per written account that a watched program owns at `commitment` and that passes the filters. */
  private notifyPrograms(txs: LandedTransaction[], commitment: Commitment, slot: bigint): void {
    const written = new Set<string>();
    for (const tx of txs) tx.accountKeys.forEach((k, i) => tx.writable[i] && written.add(k));
    for (const pubkey of written) {
      const account = this.chain.getAccount(pubkey, commitment);
      const subs = account ? this.programSubs.get(account.owner) : undefined;
      if (!account || !subs) continue;
      for (const sub of subs) {
        if (sub.commitment !== commitment || !matchesFilters(account, sub.filters)) continue;
        this.notify(sub, 'programNotification', { context: { slot }, value: { account: this.encode(sub, account), pubkey } });
      }
    }
  }

  private checkSignatures(): void {
    for (const [signature, subs] of this.signatureSubs) {
      const st = this.chain.signatureStatus(signature);
      for (const sub of [...subs]) {
        // Not on the first slot after the subscription: a signature that had already reached its commitment
        // would be notified a few milliseconds after the subscription's reply, before a client such as kit
        // (which drops what arrives before its iterator first polls) is listening.
        if (this.firstTick.delete(sub)) continue;
        const at = this.subscribedAt.get(sub);
        if (at !== undefined && this.chain.clock.now() - at < SUBSCRIBE_GRACE_MS) continue;
        if (!st || RANK[st.confirmationStatus] < RANK[sub.commitment]) continue;
        this.notify(sub, 'signatureNotification', { context: { slot: this.chain.commitmentSlot(sub.commitment) }, value: { err: st.err } });
        this.drop(sub);
      }
    }
  }
}
