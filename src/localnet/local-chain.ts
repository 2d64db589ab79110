import { createHash } from 'node:crypto';
import { Clock, FailedTransactionMetadata, LiteSvm } from 'litesvm/dist/internal.js';
import { getBase58Decoder, type Address, type KeyPairSigner } from '@solana/kit';
import { genesisRuntime } from './genesis-runtime.ts';
import { addressToBytes, addressToText } from './base58-cache.ts';
import { BlockHistory, computeUnitPrice } from './block-history.ts';
import { BlockhashWindow, blockhashAt } from './blockhash-window.ts';
import { ChainAccounts } from './chain-accounts.ts';
import { ChainFiles } from './chain-files.ts';
import { CommitmentJournal } from './commitment-journal.ts';
import { loadFaucetKey } from './faucet-key.ts';
import {
  BLOCKHASH_VALID_BLOCKS,
  FINALIZATION_LAG,
  SLOTS_PER_EPOCH,
  type AccountState,
  type ChainObserver,
  type Commitment,
  type SimulationResult,
  type StoredTransaction,
  type SubmitResult,
  type TransactionMetaJson,
  type TransactionRecord,
} from './local-chain-types.ts';
import { SignatureHistory, type SignatureStatus } from './signature-history.ts';
import { isTokenProgram } from './token-accounts.ts';
import { rejected, transactionErrorJson } from './transaction-errors.ts';
import { ledgerLine, toState, transactionRecord } from './transaction-record.ts';
import { simulateOn } from './chain-simulation.ts';
import { LeaderQueue } from './leader-queue.ts';
import type { CongestionOptions } from './congestion-profile.ts';
import { decodeWireTransaction } from './wire-transaction.ts';
import type { Clock as Time, Timer } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

// The chain's types live in local-chain-types.ts; importers of this module keep finding them here.
export * from './local-chain-types.ts';

const SNAPSHOT_EVERY_SLOTS = 300n;
const SLOT_MARK_EVERY = 32n;

export interface LocalChainOptions {
  /** Where its state is kept; null: in memory only (the simulator's chain), its faucet key drawn from `random`. */
  dataDir: string | null;
  slotMs: number;
  /** What its slots follow (and its block times read); `random`: a new genesis hash's entropy. */
  clock: Time;
  random: Random;
  log?: (msg: string) => void;
  /** A chain that congests like mainnet (leader-queue.ts); absent or null: every valid transaction lands in its slot. */
  congestion?: CongestionOptions | null;
}

const base58Decoder = getBase58Decoder();

/**
 * A real Solana runtime (LiteSVM) given a cluster's sense of time: slots that advance on a clock, a
 * 150-block blockhash window, a signature status cache, commitment lag, a transaction history and
 * durable state. LiteSVM itself knows only "the latest blockhash" and keeps no history across restarts,
 * so those parts live here.
 */
export class LocalChain {
  private svm!: LiteSvm;
  private accounts!: ChainAccounts;
  private files: ChainFiles;
  private timer: Timer | null = null;
  private startedAt = 0;
  private startSlot = 0n;
  private seq = 0;
  private snapshotSeq = 0;
  private lastSnapshotSlot = 0n;
  private readonly history = new SignatureHistory();
  private readonly journal = new CommitmentJournal();
  private readonly blockhashes = new BlockhashWindow();
  /** Blocks of recent slots (getBlock, getBlocks, prioritization fees); a bounded ring. */
  readonly blocks = new BlockHistory();
  /** When the current slot opened (unix seconds): its block time, and its transactions'. */
  private slotTime = 0;
  slot = 0n;
  genesisHash = '';
  observer: ChainObserver | null = null;
  faucet!: KeyPairSigner;
  readonly slotMs: number;
  readonly clock: Time;
  /** Where sent transactions wait for a block on a congested chain; null: they land at once. */
  readonly leader: LeaderQueue | null;

  private constructor(private readonly opts: LocalChainOptions) {
    this.files = new ChainFiles(opts.dataDir);
    this.slotMs = opts.slotMs;
    this.clock = opts.clock;
    this.leader = opts.congestion ? new LeaderQueue(opts.congestion) : null;
  }

  static async open(opts: LocalChainOptions): Promise<LocalChain> {
    const chain = new LocalChain(opts);
    chain.faucet = await loadFaucetKey(chain.files.dir, opts.random);
    chain.restore();
    return chain;
  }

  // ---- time ----

  start(): void {
    this.startedAt = this.clock.now();
    this.startSlot = this.slot;
    this.timer = this.clock.every(Math.max(5, Math.floor(this.slotMs / 4)), () => this.tick());
  }

  /** Stops the slot timer: slots then move only by advanceSlot (a test that steps them itself, not racing a timer). */
  holdClock(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** Advances to the slot the clock says it should be, at most a few slots per call. */
  private tick(): void {
    const due = this.startSlot + BigInt(Math.floor((this.clock.now() - this.startedAt) / this.slotMs));
    let steps = 0;
    while (this.slot < due && steps++ < 8) this.advanceSlot();
  }

  /** Closes the current slot: its transactions become durable before anything can call them confirmed. */
  advanceSlot(): void {
    if (this.leader) this.fillBlock();
    this.files.sync();
    this.slot += 1n;
    this.blockhashes.advance(this.genesisHash, this.slot);
    this.openSlot(Math.floor(this.clock.now() / 1000));
    this.journal.prune(this.slot);
    if (this.slot % SLOT_MARK_EVERY === 0n) this.files.append({ k: 'slot', q: this.seq, s: this.slot.toString() });
    if (this.files.durable && this.slot - this.lastSnapshotSlot >= SNAPSHOT_EVERY_SLOTS && this.seq > this.snapshotSeq) this.snapshot();
    this.observer?.onSlot(this.slot);
  }

  /** The leader fills the closing slot: the sent transactions that clear it run now, in price order. */
  private fillBlock(): void {
    const block = this.leader!.build(this.slot);
    for (const t of block.include) this.submit(t.bytes, { skipPreflight: true });
    for (const b of block.background) this.blocks.addFee(Number(this.slot), b.price, b.writes);
  }

  private openSlot(unixTimestamp: number): void {
    this.setClock(this.slot, (this.slotTime = unixTimestamp));
    this.blocks.open(Number(this.slot), unixTimestamp);
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
    return blockhashAt(this.genesisHash, slot);
  }

  latestBlockhash(commitment: Commitment = 'finalized'): { blockhash: string; lastValidBlockHeight: bigint; slot: bigint } {
    const slot = this.commitmentSlot(commitment);
    return { blockhash: this.blockhashAt(slot), lastValidBlockHeight: slot + BLOCKHASH_VALID_BLOCKS, slot };
  }

  /** The slot a recent blockhash was produced in, or null when it is unknown or too old. */
  blockhashSlot(blockhash: string): bigint | null {
    return this.blockhashes.slotOf(blockhash, this.slot);
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.blockhashSlot(blockhash) !== null;
  }

  // ---- accounts ----

  getAccount(address: string, commitment: Commitment = 'finalized'): AccountState | null {
    return this.accountAt(address, commitment === 'processed' ? null : this.commitmentSlot(commitment));
  }

  /** The account as of a recent slot (the journal reaches FINALIZATION_LAG + 8 back); null: now. */
  accountAt(address: string, slot: bigint | null): AccountState | null {
    const past = slot === null ? undefined : this.journal.stateAt(address, slot);
    if (past !== undefined) return past;
    const a = this.accounts.read(address);
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
      .map((x) => ({ address: addressToText(x.address), account: toState(x.account()) }));
  }

  decimalsOf(mint: string): number | null {
    return this.accounts.decimalsOf(mint);
  }

  get totalTransactions(): bigint {
    return this.history.total;
  }

  // ---- transactions ----

  /**
   * Runs a transaction the way `sendTransaction` does. With preflight, a failing transaction changes
   * nothing (its fee debit is rolled back, as if only simulated); without it, a failing transaction that
   * got as far as paying its fee lands with its error, and one that could not is dropped.
   */
  submit(bytes: Uint8Array, opts: { skipPreflight?: boolean } = {}): SubmitResult {
    const tx = decodeWireTransaction(bytes);
    const preflight = !opts.skipPreflight;
    if (!this.isBlockhashValid(tx.recentBlockhash)) return rejected(tx, 'BlockhashNotFound', preflight);
    if (this.history.has(tx.signature)) return rejected(tx, 'AlreadyProcessed', preflight);
    let resolved;
    try {
      resolved = this.accounts.resolveKeys(tx);
    } catch {
      return rejected(tx, 'AddressLookupTableNotFound', preflight);
    }
    const { keys, writable, loaded } = resolved;
    const pre = this.accounts.preStates(keys, writable);
    const result = tx.version === 'legacy' ? this.svm.sendLegacyTransaction(bytes) : this.svm.sendVersionedTransaction(bytes);
    const touchesTokens = keys.some((k) => isTokenProgram(k));
    const payerAfter = this.accounts.afterState(keys, pre, 0, touchesTokens);
    const failed = result instanceof FailedTransactionMetadata;
    const paidFee = (pre[0]?.lamports ?? 0n) !== (payerAfter?.lamports ?? 0n);
    if (failed && (preflight || !paidFee)) {
      const meta = result.meta();
      if (paidFee) this.accounts.rollback(keys, writable, pre);
      const err = transactionErrorJson(result.err());
      if (!preflight) return { kind: 'dropped', signature: tx.signature };
      return { kind: 'rejected', signature: tx.signature, err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), preflight };
    }
    // A read-only account cannot change, so its pre-state is its post-state.
    const post = keys.map((_k, i) => (i === 0 ? payerAfter : writable[i] ? this.accounts.afterState(keys, pre, i, touchesTokens) : pre[i]!));
    this.accounts.notePlainAccounts(tx, keys, writable, pre, post, failed);
    const record = transactionRecord(tx, keys, loaded, pre, post, result, this.slotTime, this.slot, this.accounts);
    this.seq += 1;
    const line = ledgerLine(this.seq, record);
    this.remember(tx.signature, { slot: record.slot, blockTime: record.blockTime, err: record.meta.err, line }, keys, writable, pre);
    this.files.appendLine(line);
    this.blocks.add(Number(record.slot), tx.signature, failed ? null : { price: computeUnitPrice(tx), writable: keys.filter((_k, i) => writable[i]) });
    this.observer?.onTransaction({ signature: tx.signature, slot: record.slot, err: record.meta.err, logs: record.meta.logMessages, accountKeys: keys, writable });
    return { kind: 'landed', signature: tx.signature, record };
  }

  /**
   * `sendTransaction`: straight to `submit`, or on a congested chain checked as the RPC node checks it
   * (blockhash, duplicate, preflight) and handed to the leader, where it may wait, land, or vanish.
   */
  send(bytes: Uint8Array, opts: { skipPreflight?: boolean } = {}): SubmitResult {
    if (!this.leader) return this.submit(bytes, opts);
    const tx = decodeWireTransaction(bytes);
    const preflight = !opts.skipPreflight;
    if (!this.isBlockhashValid(tx.recentBlockhash)) return rejected(tx, 'BlockhashNotFound', preflight);
    if (this.history.has(tx.signature)) return rejected(tx, 'AlreadyProcessed', preflight);
    let writable: string[];
    try {
      const r = this.accounts.resolveKeys(tx);
      writable = r.keys.filter((_k, i) => r.writable[i]);
    } catch {
      return rejected(tx, 'AddressLookupTableNotFound', preflight);
    }
    if (preflight) {
      const sim = this.simulate(bytes, { sigVerify: true });
      if (sim.err !== null) return { kind: 'rejected', signature: tx.signature, err: sim.err, logs: sim.logs, unitsConsumed: sim.unitsConsumed, preflight };
    }
    this.leader.accept(tx, bytes, writable, this.slot);
    return { kind: 'queued', signature: tx.signature };
  }

  private remember(signature: string, stored: StoredTransaction, accountKeys: readonly string[], writable: boolean[] | null, pre: (AccountState | null)[] | null): void {
    this.history.add(signature, stored, accountKeys);
    if (writable && pre) this.journal.record(stored.slot, accountKeys, writable, pre);
  }

  simulate(bytes: Uint8Array, opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean }): SimulationResult {
    return simulateOn(this.svm, this.accounts, (b) => this.isBlockhashValid(b), bytes, opts);
  }

  /** True when the chain recorded this signature, which also proves the text is a valid signature. */
  knowsSignature(signature: string): boolean {
    return this.history.has(signature);
  }

  /** The status cache view: null when unknown, otherwise its slot and how confirmed it is. */
  signatureStatus(signature: string): SignatureStatus | null {
    return this.history.status(signature, this.slot);
  }

  getTransaction(signature: string, commitment: Commitment = 'finalized'): TransactionRecord | null {
    return this.history.transaction(signature, this.commitmentSlot(commitment));
  }

  /** Newest first, as the RPC returns them. */
  signaturesForAddress(address: string, opts: { limit: number; before?: string; until?: string; commitment: Commitment }): (StoredTransaction & { signature: string })[] {
    return this.history.forAddress(address, opts, this.commitmentSlot(opts.commitment));
  }

  // ---- durability ----

  private genesis(): void {
    this.useSvm(genesisRuntime(this.faucet.address));
    const faucet = this.faucet.address;
    this.genesisHash = base58Decoder.decode(createHash('sha256').update(`hush-localnet:${faucet}:${this.clock.now()}:${this.opts.random.bytes(16).toString('hex')}`).digest());
    this.slot = 0n;
    this.openSlot(Math.floor(this.clock.now() / 1000));
    this.blockhashes.fill(this.genesisHash, this.slot);
    this.snapshot();
    this.opts.log?.(`localnet genesis ${this.genesisHash}`);
  }

  /** Blockhash checks and duplicate detection happen here (over a 150-block window), not in LiteSVM. */
  private useSvm(svm: LiteSvm): void {
    this.svm = svm;
    this.accounts = new ChainAccounts(svm);
    this.svm.setBlockhashCheck(false);
    this.svm.setTransactionHistory(0n);
    this.svm.setSigverify(true);
  }

  private snapshot(): void {
    this.files.writeSnapshot(
      { seq: this.seq, slot: this.slot.toString(), genesisHash: this.genesisHash, createdAt: this.clock.date().toISOString() },
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
    this.useSvm(LiteSvm.fromBytes(snap.state));
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
      // Slots before a restart keep their blocks where something landed in them (times from the ledger).
      this.blocks.open(Number(recSlot), rec.t ?? 0);
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
      this.blocks.add(Number(recSlot), tx.signature, null);
    }
    // Slot marks are written every SLOT_MARK_EVERY slots, so after a crash the last slot served (and seen by
    // clients, e.g. as a transaction's finalization) may be up to that many slots past the last record.
    // Resume beyond it so slots never go backwards and nothing finalized becomes unfinalized.
    this.slot = slot + 1n + (cleanShutdown ? 0n : SLOT_MARK_EVERY);
    // The commitment journal (older views of recently written accounts) is not persisted, so resume where
    // every restored transaction is already finalized: then the current state is the one all levels see.
    if (this.slot <= lastTxSlot + FINALIZATION_LAG) this.slot = lastTxSlot + FINALIZATION_LAG + 1n;
    this.openSlot(Math.floor(this.clock.now() / 1000));
    this.blockhashes.fill(this.genesisHash, this.slot);
    this.lastSnapshotSlot = BigInt(snap.header.slot);
    this.opts.log?.(`localnet restored at slot ${this.slot}: ${this.history.size} transactions in history, ${replayed} replayed over the snapshot`);
    if (replayed > 0) this.snapshot();
  }

  close(): void {
    this.holdClock();
    this.files.append({ k: 'slot', q: this.seq, s: this.slot.toString(), f: 1 });
    if (this.seq > this.snapshotSeq) this.snapshot();
    this.files.close();
  }
}
