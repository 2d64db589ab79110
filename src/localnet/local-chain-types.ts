import type { Address } from '@solana/kit';
import type { uiTokenAmount } from './token-accounts.ts';

/** A transaction error in the JSON shape the Solana RPC uses (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`). */
export type TransactionErrorJson = string | Record<string, unknown>;

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** A blockhash can be used for this many blocks after the one that produced it (MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_BLOCKS = 150n;
/** Slots between a slot and its finalization (the supermajority root lags ~32 slots behind the tip). */
export const FINALIZATION_LAG = 32n;
/** Slots per epoch, without warm-up (the validator's default schedule). */
export const SLOTS_PER_EPOCH = 432_000n;
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

/** What history keeps of a landed transaction (see SignatureHistory). */
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
  | { kind: 'dropped'; signature: string }
  /** Handed to a congested chain's leader: it lands when it clears a slot, or is dropped silently. */
  | { kind: 'queued'; signature: string };

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: [string, 'base64'] } | null;
  innerInstructions: TransactionMetaJson['innerInstructions'];
  postAccounts: Map<string, AccountState | null>;
  /** The transaction's account keys, lookup tables resolved (what inner instructions index). */
  accountKeys: string[];
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

export class ChainError extends Error {}
