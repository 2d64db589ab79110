import { createHash } from 'node:crypto';
import { Account, Clock, FailedTransactionMetadata, LiteSvm, TransactionMetadata } from 'litesvm/dist/internal.js';
import {
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { addressToBytes, addressToText } from './base58-cache.ts';
import { ChainFiles } from './chain-files.ts';
import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import { transactionFee } from './fee-schedule.ts';
import { loadFaucetKey } from './faucet-key.ts';
import { FAUCET_LAMPORTS, SEED_TOKENS } from './seed-tokens.ts';
import { encodeMint, parseMint, parseTokenAccount, uiTokenAmount, isTokenProgram, TOKEN_PROGRAM, MINT_SIZE } from './token-accounts.ts';
import { transactionErrorJson, type TransactionErrorJson } from './transaction-errors.ts';
import { decodeWireTransaction, type WireTransaction } from './wire-transaction.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** A blockhash can be used for this many blocks after the one that produced it (MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_BLOCKS = 150n;
/** Slots between a slot and its finalization (the supermajority root lags ~32 slots behind the tip). */
export const FINALIZATION_LAG = 32n;
const SLOTS_PER_EPOCH = 432_000n;
const SNAPSHOT_EVERY_SLOTS = 300n;
const SLOT_MARK_EVERY = 32n;
const PLAIN_ACCOUNTS_MAX = 200_000;
/** Newer validators report this rent epoch for every rent-exempt account. */
export const RENT_EXEMPT_EPOCH = 18446744073709551615n;

export interface AccountState {
  lamports: bigint;
  data: Uint8Array;
  owner: Address;
  executable: boolean;
  rentEpoch: bigint;
}

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: ReturnType<typeof uiTokenAmount>;
}

export interface TransactionMetaJson {
  err: TransactionErrorJson | null;
  status: { Ok: null } | { Err: TransactionErrorJson };
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[] }[];
  logMessages: string[];
  rewards: [];
  loadedAddresses: { writable: string[]; readonly: string[] };
  computeUnitsConsumed: bigint;
  returnData?: { programId: string; data: [string, 'base64'] };
}

export interface TransactionRecord {
  signature: string;
  slot: bigint;
  blockTime: number;
  bytes: Uint8Array;
  version: 0 | 'legacy';
  meta: TransactionMetaJson;
  accountKeys: string[];
}

/** What history keeps of a landed transaction (see LocalChain.txs). */
export interface StoredTransaction {
  slot: bigint;
  blockTime: number;
  err: TransactionErrorJson | null;
  /** Its ledger line (JSON): the full record on demand. */
  line: string;
}

export type SubmitResult =
  | { kind: 'landed'; signature: string; record: TransactionRecord }
  /** Never executed, or executed only as a preflight: nothing on chain changed. */
  | { kind: 'rejected'; signature: string; err: TransactionErrorJson; logs: string[]; unitsConsumed: bigint; preflight: boolean }
  /** skipPreflight and the transaction could not land: the RPC answers with its signature, the cluster drops it. */
  | { kind: 'dropped'; signature: string };

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: [string, 'base64'] } | null;
  innerInstructions: TransactionMetaJson['innerInstructions'];
  postAccounts: Map<string, AccountState | null>;
}

/** What a landed transaction tells subscribers (PubSub): who it touched, what it wrote, its logs. */
export interface LandedTransaction {
  signature: string;
  slot: bigint;
  err: TransactionErrorJson | null;
  logs: string[];
  accountKeys: readonly string[];
  writable: readonly boolean[];
}

/** Hooks for the PubSub server; absent (null) unless a WebSocket server is attached, so nothing is paid otherwise. */
export interface ChainObserver {
  onTransaction(tx: LandedTransaction): void;
  /** After the chain moved to `slot`: slot - 1 became confirmed, slot - FINALIZATION_LAG finalized. */
  onSlot(slot: bigint): void;
}

export interface LocalChainOptions {
  dataDir: string;
  slotMs: number;
  log?: (msg: string) => void;
}

const addressEncoder = getAddressEncoder();
const addressDecoder = getAddressDecoder();
const base58Decoder = getBase58Decoder();

export class ChainError extends Error {}

const NO_DATA = new Uint8Array(0);
const SYSTEM_PROGRAM: string = SYSTEM_PROGRAM_ADDRESS;
const LOADERS = new Set([
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
]);

/**
 * A real Solana runtime (LiteSVM) given a cluster's sense of time: slots that advance on a clock, a
 * 150-block blockhash window, a signature status cache, commitment lag, a transaction history and
 * durable state. LiteSVM itself knows only "the latest blockhash" and keeps no history across restarts,
 * so those parts live here.
 */
export class LocalChain {
  private svm!: LiteSvm;
  private files: ChainFiles;
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private startSlot = 0n;
  private seq = 0;
  private snapshotSeq = 0;
  private lastSnapshotSlot = 0n;
  private mintDecimals = new Map<string, number>();
  /**
   * History: per signature only what statuses need, plus the transaction's ledger line from which the full
   * record is rebuilt on demand — a few objects per transaction instead of a graph (GC cost).
   */
  private readonly txs = new Map<string, StoredTransaction>();
  private readonly byAddress = new Map<string, string[]>();
  /** Pre-images of accounts written in recent slots, so reads at `confirmed`/`finalized` see older state. */
  private readonly journal = new Map<string, { slot: bigint; pre: AccountState | null }[]>();
  private readonly journalOrder: { slot: bigint; address: string }[] = [];
  private transactionCount = 0n;
  slot = 0n;
  genesisHash = '';
  observer: ChainObserver | null = null;
  faucet!: KeyPairSigner;
  readonly slotMs: number;
  private readonly log: (msg: string) => void;

  private constructor(opts: LocalChainOptions) {
    this.files = new ChainFiles(opts.dataDir);
    this.slotMs = opts.slotMs;
    this.log = opts.log ?? (() => {});
  }

  static async open(opts: LocalChainOptions): Promise<LocalChain> {
    const chain = new LocalChain(opts);
    chain.faucet = await loadFaucetKey(chain.files.dir);
    chain.restore();
    return chain;
  }

  // ---- time ----

  start(): void {
    this.startedAt = Date.now();
    this.startSlot = this.slot;
    this.timer = setInterval(() => this.tick(), Math.max(5, Math.floor(this.slotMs / 4)));
    this.timer.unref();
  }

  /** Advances to the slot the wall clock says it should be, at most a few slots per call. */
  private tick(): void {
    const due = this.startSlot + BigInt(Math.floor((Date.now() - this.startedAt) / this.slotMs));
    let steps = 0;
    while (this.slot < due && steps++ < 8) this.advanceSlot();
  }

  /** Closes the current slot: its transactions become durable before anything can call them confirmed. */
  advanceSlot(): void {
    this.files.sync();
    this.slot += 1n;
    this.blockhashSlots.set(this.blockhashAt(this.slot), this.slot);
    if (this.slot > BLOCKHASH_VALID_BLOCKS) this.blockhashSlots.delete(this.blockhashAt(this.slot - BLOCKHASH_VALID_BLOCKS - 1n));
    this.setClock(this.slot, Math.floor(Date.now() / 1000));
    this.pruneJournal();
    if (this.slot % SLOT_MARK_EVERY === 0n) this.files.append({ k: 'slot', q: this.seq, s: this.slot.toString() });
    if (this.slot - this.lastSnapshotSlot >= SNAPSHOT_EVERY_SLOTS && this.seq > this.snapshotSeq) this.snapshot();
    this.observer?.onSlot(this.slot);
  }

  private setClock(slot: bigint, unixTimestamp: number): void {
    const epoch = slot / SLOTS_PER_EPOCH;
    this.svm.setClock(new Clock(slot, BigInt(unixTimestamp), epoch, epoch + 1n, BigInt(unixTimestamp)));
  }

  commitmentSlot(commitment: Commitment = 'finalized'): bigint {
    if (commitment === 'processed') return this.slot;
    const lag = commitment === 'confirmed' ? 1n : FINALIZATION_LAG;
    return this.slot > lag ? this.slot - lag : 0n;
  }

  /** Blockhashes are derived from the genesis hash and the slot, so they are stable across restarts. */
  blockhashAt(slot: bigint): string {
    const h = createHash('sha256').update(this.genesisHash).update(slot.toString()).digest();
    return base58Decoder.decode(h);
  }

  latestBlockhash(commitment: Commitment = 'finalized'): { blockhash: string; lastValidBlockHeight: bigint; slot: bigint } {
    const slot = this.commitmentSlot(commitment);
    return { blockhash: this.blockhashAt(slot), lastValidBlockHeight: slot + BLOCKHASH_VALID_BLOCKS, slot };
  }

  /** Blockhash → slot for the last 151 slots, kept up to date as slots advance. */
  private readonly blockhashSlots = new Map<string, bigint>();

  private fillBlockhashWindow(): void {
    this.blockhashSlots.clear();
    const from = this.slot > BLOCKHASH_VALID_BLOCKS ? this.slot - BLOCKHASH_VALID_BLOCKS : 0n;
    for (let x = from; x <= this.slot; x++) this.blockhashSlots.set(this.blockhashAt(x), x);
  }

  /** The slot a recent blockhash was produced in, or null when it is unknown or too old. */
  blockhashSlot(blockhash: string): bigint | null {
    const s = this.blockhashSlots.get(blockhash);
    return s !== undefined && this.slot - s <= BLOCKHASH_VALID_BLOCKS ? s : null;
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.blockhashSlot(blockhash) !== null;
  }

  // ---- accounts ----

  private readAccount(address: string): AccountState | null {
    const a = this.svm.getAccount(addressToBytes(address));
    return a === null ? null : toState(a);
  }

  /**
   * What a transaction's bookkeeping needs of an account: lamports and owner always; data only for
   * accounts it may write (rollback, commitment journal) or token accounts (token balances).
   */
  private peekAccount(address: string, full: boolean): AccountState | null {
    if (!full) {
      const program = this.programs.get(address);
      if (program) return program;
    }
    const a = this.svm.getAccount(addressToBytes(address));
    if (a === null) return null;
    const owner = addressToText(a.owner()) as Address;
    // Only loader-owned accounts can be executable: skip the native call for everything else.
    const executable = LOADERS.has(owner) && a.executable();
    if (!full && !isTokenProgram(owner)) {
      const state = { lamports: a.lamports(), data: NO_DATA, owner, executable, rentEpoch: RENT_EXEMPT_EPOCH };
      if (executable) this.programs.set(address, state);
      return state;
    }
    return { lamports: a.lamports(), data: a.data(), owner, executable, rentEpoch: RENT_EXEMPT_EPOCH };
  }

  /** Read-only program accounts seen by transactions; they cannot change unless written, which evicts them. */
  private readonly programs = new Map<string, AccountState>();
  private readonly plainAccounts = new Map<string, AccountState>();

  getAccount(address: string, commitment: Commitment = 'finalized'): AccountState | null {
    const entries = this.journal.get(address);
    if (entries && commitment !== 'processed') {
      const at = this.commitmentSlot(commitment);
      for (const e of entries) if (e.slot > at) return e.pre;
    }
    const a = this.readAccount(address);
    return a && a.lamports === 0n && a.data.length === 0 ? null : a;
  }

  getBalance(address: string, commitment?: Commitment): bigint {
    return this.getAccount(address, commitment)?.lamports ?? 0n;
  }

  minimumBalanceForRentExemption(size: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(size);
  }

  /** All accounts of a program (token accounts by owner use this); current state only. */
  programAccounts(program: string): { address: Address; account: AccountState }[] {
    return this.svm
      .getProgramAccounts(addressToBytes(program))
      .map((x) => ({ address: addressToText(x.address) as Address, account: toState(x.account()) }));
  }

  decimalsOf(mint: string): number | null {
    const cached = this.mintDecimals.get(mint);
    if (cached !== undefined) return cached;
    const acc = this.readAccount(mint);
    const parsed = acc ? parseMint(acc.owner, acc.data) : null;
    if (!parsed) return null;
    this.mintDecimals.set(mint, parsed.decimals);
    return parsed.decimals;
  }

  get totalTransactions(): bigint {
    return this.transactionCount;
  }

  // ---- transactions ----

  private resolveKeys(tx: WireTransaction): { keys: string[]; writable: boolean[]; loaded: { writable: string[]; readonly: string[] } } {
    const keys: string[] = [...tx.staticKeys];
    const writable = [...tx.writableStatic];
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    for (const l of tx.lookups) {
      const table = this.readAccount(l.lookupTableAddress);
      const addrAt = (i: number) => {
        const off = 56 + i * 32;
        if (!table || table.data.length < off + 32) throw new ChainError('AddressLookupTableNotFound');
        return addressDecoder.decode(table.data.subarray(off, off + 32));
      };
      for (const i of l.writableIndexes) loaded.writable.push(addrAt(i));
      for (const i of l.readonlyIndexes) loaded.readonly.push(addrAt(i));
    }
    for (const a of loaded.writable) (keys.push(a), writable.push(true));
    for (const a of loaded.readonly) (keys.push(a), writable.push(false));
    return { keys, writable, loaded };
  }

  private tokenBalances(keys: string[], accounts: (AccountState | null)[]): TokenBalanceJson[] {
    const out: TokenBalanceJson[] = [];
    accounts.forEach((acc, accountIndex) => {
      if (!acc || !isTokenProgram(acc.owner)) return;
      const t = parseTokenAccount(acc.owner, acc.data);
      if (!t) return;
      const decimals = this.decimalsOf(t.mint);
      if (decimals === null) return;
      out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: acc.owner, uiTokenAmount: uiTokenAmount(t.amount, decimals) });
    });
    void keys;
    return out;
  }

  /**
   * Runs a transaction the way `sendTransaction` does. With preflight, a failing transaction changes
   * nothing (its fee debit is rolled back, as if only simulated); without it, a failing transaction that
   * got as far as paying its fee lands with its error, and one that could not is dropped.
   */
  submit(bytes: Uint8Array, opts: { skipPreflight?: boolean } = {}): SubmitResult {
    const tx = decodeWireTransaction(bytes);
    const preflight = !opts.skipPreflight;
    if (!this.isBlockhashValid(tx.recentBlockhash)) return rejected(tx, 'BlockhashNotFound', preflight);
    if (this.txs.has(tx.signature)) return rejected(tx, 'AlreadyProcessed', preflight);
    let resolved;
    try {
      resolved = this.resolveKeys(tx);
    } catch {
      return rejected(tx, 'AddressLookupTableNotFound', preflight);
    }
    const { keys, writable, loaded } = resolved;
    const pre: (AccountState | null)[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (writable[i]) this.programs.delete(k);
      pre[i] = this.plainAccounts.get(k) ?? this.peekAccount(k, writable[i]!);
    }
    const result = tx.version === 'legacy' ? this.svm.sendLegacyTransaction(bytes) : this.svm.sendVersionedTransaction(bytes);
    // After execution, an account that was system-owned in a transaction that never calls a token program is
    // still not a token account: its lamports (one native call) are all the bookkeeping needs.
    const touchesTokens = keys.some((k) => isTokenProgram(k));
    const payerAfter = this.afterState(keys, pre, 0, touchesTokens);
    const failed = result instanceof FailedTransactionMetadata;
    const paidFee = (pre[0]?.lamports ?? 0n) !== (payerAfter?.lamports ?? 0n);
    if (failed && (preflight || !paidFee)) {
      const meta = result.meta();
      if (paidFee) this.rollback(keys, writable, pre);
      const err = transactionErrorJson(result.err());
      if (!preflight) return { kind: 'dropped', signature: tx.signature };
      return { kind: 'rejected', signature: tx.signature, err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), preflight };
    }
    // A read-only account cannot change, so its pre-state is its post-state.
    const post = keys.map((_k, i) => (i === 0 ? payerAfter : writable[i] ? this.afterState(keys, pre, i, touchesTokens) : pre[i]!));
    this.notePlainAccounts(tx, keys, writable, pre, post, failed);
    const record = this.record(tx, keys, loaded, pre, post, result, Math.floor(Date.now() / 1000), this.slot);
    this.seq += 1;
    const line = ledgerLine(this.seq, record);
    this.remember(tx.signature, { slot: record.slot, blockTime: record.blockTime, err: record.meta.err, line }, keys, writable, pre);
    this.files.appendLine(line);
    this.observer?.onTransaction({ signature: tx.signature, slot: record.slot, err: record.meta.err, logs: record.meta.logMessages, accountKeys: keys, writable });
    return { kind: 'landed', signature: tx.signature, record };
  }

  private afterState(keys: string[], pre: (AccountState | null)[], i: number, touchesTokens: boolean): AccountState | null {
    const before = pre[i];
    if (!touchesTokens && before && before.owner === SYSTEM_PROGRAM) {
      const lamports = this.svm.getBalance(addressToBytes(keys[i]!));
      return lamports === null ? null : { ...before, lamports, data: NO_DATA };
    }
    return this.peekAccount(keys[i]!, false);
  }

  /**
   * Keeps the exact state of plain system accounts (no data) that only lamport transfers or failures have
   * touched, so the next transaction on them needs no pre-state read. Every other write forgets the account.
   */
  private notePlainAccounts(tx: WireTransaction, keys: string[], writable: boolean[], pre: (AccountState | null)[], post: (AccountState | null)[], failed: boolean): void {
    // A failed transaction changes nothing but lamports (the fee); a lamport transfer changes nothing else.
    const lamportsOnly = failed || onlyLamportTransfers(tx, keys);
    for (let i = 0; i < keys.length; i++) {
      if (!writable[i]) continue;
      const before = pre[i];
      const after = post[i];
      if (lamportsOnly && before && after && before.owner === SYSTEM_PROGRAM && before.data.length === 0 && !before.executable) {
        this.plainAccounts.set(keys[i]!, after.lamports === before.lamports ? before : { ...before, lamports: after.lamports });
      } else this.plainAccounts.delete(keys[i]!);
    }
    if (this.plainAccounts.size > PLAIN_ACCOUNTS_MAX) this.plainAccounts.clear();
  }

  private rollback(keys: string[], writable: boolean[], pre: (AccountState | null)[]): void {
    keys.forEach((k, i) => {
      const p = pre[i];
      if (writable[i]) this.plainAccounts.delete(k);
      if (writable[i] && p) this.svm.setAccount(addressToBytes(k), fromState(p));
    });
  }

  private record(
    tx: WireTransaction,
    keys: string[],
    loaded: { writable: string[]; readonly: string[] },
    pre: (AccountState | null)[],
    post: (AccountState | null)[],
    result: TransactionMetadata | FailedTransactionMetadata,
    blockTime: number,
    slot: bigint,
  ): TransactionRecord {
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const err = result instanceof FailedTransactionMetadata ? transactionErrorJson(result.err()) : null;
    const logs = meta.logs();
    // Inner instructions and return data exist only when the logs show them (a nested invoke, a
    // "Program return:"); skipping the native calls otherwise saves a visible share per transaction.
    const innerInstructions = logs.some((l) => l.endsWith(' [2]')) ? innerInstructionsJson(meta) : [];
    const rd = logs.some((l) => l.startsWith('Program return: ')) ? meta.returnData() : null;
    const rdData = rd ? rd.data() : NO_DATA;
    const metaJson: TransactionMetaJson = {
      err,
      status: err === null ? { Ok: null } : { Err: err },
      fee: transactionFee(tx),
      preBalances: pre.map((a) => a?.lamports ?? 0n),
      postBalances: post.map((a) => a?.lamports ?? 0n),
      preTokenBalances: this.tokenBalances(keys, pre),
      postTokenBalances: this.tokenBalances(keys, post),
      innerInstructions,
      logMessages: logs,
      rewards: [],
      loadedAddresses: loaded,
      computeUnitsConsumed: meta.computeUnitsConsumed(),
    };
    if (rd && rdData.length > 0) metaJson.returnData = { programId: addressDecoder.decode(rd.programId()), data: [Buffer.from(rdData).toString('base64'), 'base64'] };
    return { signature: tx.signature, slot, blockTime, bytes: tx.bytes, version: tx.version, meta: metaJson, accountKeys: keys };
  }

  private remember(signature: string, stored: StoredTransaction, accountKeys: readonly string[], writable: boolean[] | null, pre: (AccountState | null)[] | null): void {
    this.txs.set(signature, stored);
    this.transactionCount += 1n;
    for (const k of new Set(accountKeys)) {
      let list = this.byAddress.get(k);
      if (!list) this.byAddress.set(k, (list = []));
      list.push(signature);
    }
    if (!writable || !pre) return;
    accountKeys.forEach((k, i) => {
      if (!writable[i]) return;
      let list = this.journal.get(k);
      if (!list) this.journal.set(k, (list = []));
      list.push({ slot: stored.slot, pre: pre[i] ?? null });
      this.journalOrder.push({ slot: stored.slot, address: k });
    });
  }

  private pruneJournal(): void {
    const keepFrom = this.slot > FINALIZATION_LAG + 8n ? this.slot - FINALIZATION_LAG - 8n : 0n;
    let n = 0;
    while (n < this.journalOrder.length && this.journalOrder[n]!.slot < keepFrom) {
      const { address } = this.journalOrder[n]!;
      const list = this.journal.get(address);
      list?.shift();
      if (list && list.length === 0) this.journal.delete(address);
      n++;
    }
    if (n > 0) this.journalOrder.splice(0, n);
  }

  simulate(bytes: Uint8Array, opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean }): SimulationResult {
    const tx = decodeWireTransaction(bytes);
    const empty = (err: TransactionErrorJson): SimulationResult => ({ err, logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], postAccounts: new Map() });
    if (!opts.replaceRecentBlockhash && !this.isBlockhashValid(tx.recentBlockhash)) return empty('BlockhashNotFound');
    this.svm.setSigverify(Boolean(opts.sigVerify));
    let result;
    try {
      result = tx.version === 'legacy' ? this.svm.simulateLegacyTransaction(bytes) : this.svm.simulateVersionedTransaction(bytes);
    } finally {
      this.svm.setSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      return { err: transactionErrorJson(result.err()), logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData: null, innerInstructions: [], postAccounts: new Map() };
    }
    const meta = result.meta();
    const postAccounts = new Map<string, AccountState | null>();
    for (const pa of result.postAccounts()) postAccounts.set(addressDecoder.decode(pa.address), toState(pa.account()));
    const rd = meta.returnData();
    const innerInstructions = innerInstructionsJson(meta);
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: rd.data().length > 0 ? { programId: addressDecoder.decode(rd.programId()), data: [Buffer.from(rd.data()).toString('base64'), 'base64'] } : null,
      innerInstructions,
      postAccounts,
    };
  }

  /** True when the chain recorded this signature, which also proves the text is a valid signature. */
  knowsSignature(signature: string): boolean {
    return this.txs.has(signature);
  }

  /** The status cache view: null when unknown, otherwise its slot and how confirmed it is. */
  signatureStatus(signature: string): { slot: bigint; confirmations: bigint | null; err: TransactionErrorJson | null; confirmationStatus: Commitment } | null {
    const r = this.txs.get(signature);
    if (!r) return null;
    const depth = this.slot - r.slot;
    const confirmationStatus: Commitment = depth >= FINALIZATION_LAG ? 'finalized' : depth >= 1n ? 'confirmed' : 'processed';
    return { slot: r.slot, confirmations: confirmationStatus === 'finalized' ? null : depth, err: r.err, confirmationStatus };
  }

  getTransaction(signature: string, commitment: Commitment = 'finalized'): TransactionRecord | null {
    const r = this.txs.get(signature);
    if (!r || r.slot > this.commitmentSlot(commitment)) return null;
    const rec = parseJsonWithBigInts(r.line) as { tx: string; m: TransactionMetaJson };
    const bytes = new Uint8Array(Buffer.from(rec.tx, 'base64'));
    const tx = decodeWireTransaction(bytes);
    const meta = rec.m;
    return {
      signature,
      slot: r.slot,
      blockTime: r.blockTime,
      bytes,
      version: tx.version,
      meta,
      accountKeys: [...tx.staticKeys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly],
    };
  }

  /** Newest first, as the RPC returns them. */
  signaturesForAddress(address: string, opts: { limit: number; before?: string; until?: string; commitment: Commitment }): (StoredTransaction & { signature: string })[] {
    const list = this.byAddress.get(address) ?? [];
    const maxSlot = this.commitmentSlot(opts.commitment);
    const out: (StoredTransaction & { signature: string })[] = [];
    let started = opts.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < opts.limit; i--) {
      const sig = list[i]!;
      if (!started) {
        if (sig === opts.before) started = true;
        continue;
      }
      if (sig === opts.until) break;
      const r = this.txs.get(sig)!;
      if (r.slot <= maxSlot) out.push({ ...r, signature: sig });
    }
    return out;
  }

  // ---- durability ----

  private genesis(): void {
    const svm = new LiteSvm();
    svm.setDefaultPrograms();
    svm.withNativeMints();
    this.svm = svm;
    this.configure();
    const faucet = this.faucet.address;
    this.svm.setAccount(addressEncoder.encode(faucet) as Uint8Array, new Account(FAUCET_LAMPORTS, new Uint8Array(0), addressEncoder.encode('11111111111111111111111111111111' as Address) as Uint8Array, false, 0n));
    const rent = this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
    for (const t of SEED_TOKENS) {
      const data = encodeMint({ mintAuthority: faucet, supply: 0n, decimals: t.decimals, freezeAuthority: null }, (a) => addressEncoder.encode(a) as Uint8Array);
      this.svm.setAccount(addressEncoder.encode(t.mint as Address) as Uint8Array, new Account(rent, data, addressEncoder.encode(TOKEN_PROGRAM as Address) as Uint8Array, false, 0n));
    }
    this.genesisHash = base58Decoder.decode(createHash('sha256').update(`hush-localnet:${faucet}:${Date.now()}:${Math.random()}`).digest());
    this.slot = 0n;
    this.setClock(0n, Math.floor(Date.now() / 1000));
    this.fillBlockhashWindow();
    this.snapshot();
    this.log(`localnet genesis ${this.genesisHash}`);
  }

  /** Blockhash checks and duplicate detection happen here (over a 150-block window), not in LiteSVM. */
  private configure(): void {
    this.svm.setBlockhashCheck(false);
    this.svm.setTransactionHistory(0n);
    this.svm.setSigverify(true);
  }

  private snapshot(): void {
    this.files.writeSnapshot(
      { seq: this.seq, slot: this.slot.toString(), genesisHash: this.genesisHash, createdAt: new Date().toISOString() },
      this.svm.toBytes(),
    );
    this.snapshotSeq = this.seq;
    this.lastSnapshotSlot = this.slot;
  }

  private restore(): void {
    const snap = this.files.readSnapshot();
    if (!snap) {
      this.files.readLedger(); // a ledger without a snapshot is meaningless; start over
      this.genesis();
      return;
    }
    this.svm = LiteSvm.fromBytes(snap.state);
    this.configure();
    this.genesisHash = snap.header.genesisHash;
    this.snapshotSeq = snap.header.seq;
    let slot = BigInt(snap.header.slot);
    let replayed = 0;
    let lastTxSlot = 0n;
    let cleanShutdown = false;
    for (const rec of this.files.readLedger()) {
      cleanShutdown = rec.k === 'slot' && rec.f === 1;
      const recSlot = BigInt(rec.s);
      if (recSlot > slot) slot = recSlot;
      if (rec.q > this.seq) this.seq = rec.q;
      if (rec.k !== 'tx' || !rec.tx) continue;
      if (recSlot > lastTxSlot) lastTxSlot = recSlot;
      const bytes = new Uint8Array(Buffer.from(rec.tx, 'base64'));
      const tx = decodeWireTransaction(bytes);
      if (rec.q > this.snapshotSeq) {
        this.setClock(recSlot, rec.t ?? 0);
        tx.version === 'legacy' ? this.svm.sendLegacyTransaction(bytes) : this.svm.sendVersionedTransaction(bytes);
        replayed++;
      }
      const meta = rec.m as TransactionMetaJson;
      const keys = [...tx.staticKeys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly];
      this.remember(tx.signature, { slot: recSlot, blockTime: rec.t ?? 0, err: meta.err, line: rec.raw! }, keys, null, null);
    }
    // Slot marks are written every SLOT_MARK_EVERY slots, so after a crash the last slot served (and seen by
    // clients, e.g. as a transaction's finalization) may be up to that many slots past the last record.
    // Resume beyond it so slots never go backwards and nothing finalized becomes unfinalized.
    this.slot = slot + 1n + (cleanShutdown ? 0n : SLOT_MARK_EVERY);
    // The commitment journal (older views of recently written accounts) is not persisted, so resume where
    // every restored transaction is already finalized: then the current state is the one all levels see.
    if (this.slot <= lastTxSlot + FINALIZATION_LAG) this.slot = lastTxSlot + FINALIZATION_LAG + 1n;
    this.setClock(this.slot, Math.floor(Date.now() / 1000));
    this.fillBlockhashWindow();
    this.lastSnapshotSlot = BigInt(snap.header.slot);
    this.log(`localnet restored at slot ${this.slot}: ${this.txs.size} transactions in history, ${replayed} replayed over the snapshot`);
    if (replayed > 0) this.snapshot();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.files.append({ k: 'slot', q: this.seq, s: this.slot.toString(), f: 1 });
    if (this.seq > this.snapshotSeq) this.snapshot();
    this.files.close();
  }
}

/**
 * The ledger line for a landed transaction, built by hand: the generic bigint-aware JSON writer is
 * regex-based and was a visible share of the per-transaction cost. Same output shape as ChainFiles.append.
 */
function rejected(tx: WireTransaction, err: TransactionErrorJson, preflight: boolean): SubmitResult {
  return preflight ? { kind: 'rejected', signature: tx.signature, err, logs: [], unitsConsumed: 0n, preflight } : { kind: 'dropped', signature: tx.signature };
}

const SYSTEM_TRANSFER = 2;

/** True when every instruction is a System transfer or a compute-budget setting: only lamports can move. */
function onlyLamportTransfers(tx: WireTransaction, keys: string[]): boolean {
  for (const ix of tx.instructions) {
    const program = keys[ix.programAddressIndex];
    if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    if (program !== SYSTEM_PROGRAM || ix.data.length !== 12 || ix.data[0] !== SYSTEM_TRANSFER || ix.data[1] !== 0 || ix.data[2] !== 0 || ix.data[3] !== 0) return false;
  }
  return true;
}

function ledgerLine(seq: number, r: TransactionRecord): string {
  const m = r.meta;
  const meta =
    `{"err":${JSON.stringify(m.err)},"status":${JSON.stringify(m.status)},"fee":${m.fee}` +
    `,"preBalances":[${m.preBalances.join(',')}],"postBalances":[${m.postBalances.join(',')}]` +
    `,"preTokenBalances":${JSON.stringify(m.preTokenBalances)},"postTokenBalances":${JSON.stringify(m.postTokenBalances)}` +
    `,"innerInstructions":${JSON.stringify(m.innerInstructions)},"logMessages":${JSON.stringify(m.logMessages)},"rewards":[]` +
    `,"loadedAddresses":${JSON.stringify(m.loadedAddresses)},"computeUnitsConsumed":${m.computeUnitsConsumed}` +
    (m.returnData ? `,"returnData":${JSON.stringify(m.returnData)}` : '') +
    '}';
  return `{"k":"tx","q":${seq},"s":"${r.slot}","t":${r.blockTime},"tx":"${Buffer.from(r.bytes).toString('base64')}","m":${meta}}`;
}

/** LiteSVM's inner instructions in the RPC's shape (only top-level instructions that made inner calls). */
function innerInstructionsJson(meta: TransactionMetadata): TransactionMetaJson['innerInstructions'] {
  return meta
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((ii) => {
        const ci = ii.instruction();
        return { programIdIndex: ci.programIdIndex(), accounts: [...ci.accounts()], data: base58Decoder.decode(ci.data()), stackHeight: ii.stackHeight() };
      }),
    }))
    .filter((x) => x.instructions.length > 0);
}

function toState(a: Account): AccountState {
  return { lamports: a.lamports(), data: a.data(), owner: addressToText(a.owner()) as Address, executable: a.executable(), rentEpoch: RENT_EXEMPT_EPOCH };
}

function fromState(s: AccountState): Account {
  return new Account(s.lamports, s.data, addressToBytes(s.owner), s.executable, 0n);
}
