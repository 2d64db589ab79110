import type { LiteSvm } from 'litesvm/dist/internal.js';
import { getAddressDecoder } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { addressToBytes, addressToText } from './base58-cache.ts';
import { ChainError, RENT_EXEMPT_EPOCH, type AccountState } from './local-chain-types.ts';
import { isTokenProgram, parseMint } from './token-accounts.ts';
import { fromState, NO_DATA, toState } from './transaction-record.ts';
import type { WireTransaction } from './wire-transaction.ts';

const PLAIN_ACCOUNTS_MAX = 200_000;
const SYSTEM_PROGRAM: string = SYSTEM_PROGRAM_ADDRESS;
const SYSTEM_TRANSFER = 2;
const LOADERS = new Set([
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
]);
const addressDecoder = getAddressDecoder();

export interface ResolvedKeys {
  keys: string[];
  writable: boolean[];
  loaded: { writable: string[]; readonly: string[] };
}

/**
 * Account reads from LiteSVM's current state, and the caches that spare a transaction's bookkeeping
 * native calls: mint decimals, read-only program accounts, plain system accounts.
 */
export class ChainAccounts {
  private readonly mintDecimals = new Map<string, number>();
  /** Read-only program accounts seen by transactions; they cannot change unless written, which evicts them. */
  private readonly programs = new Map<string, AccountState>();
  private readonly plainAccounts = new Map<string, AccountState>();

  constructor(private readonly svm: LiteSvm) {}

  read(address: string): AccountState | null {
    const a = this.svm.getAccount(addressToBytes(address));
    return a === null ? null : toState(a);
  }

  decimalsOf(mint: string): number | null {
    const cached = this.mintDecimals.get(mint);
    if (cached !== undefined) return cached;
    const acc = this.read(mint);
    const parsed = acc ? parseMint(acc.owner, acc.data) : null;
    if (!parsed) return null;
    this.mintDecimals.set(mint, parsed.decimals);
    return parsed.decimals;
  }

  /** A transaction's account keys, address lookup tables resolved; throws ChainError when a table is missing. */
  resolveKeys(tx: WireTransaction): ResolvedKeys {
    const keys: string[] = [...tx.staticKeys];
    const writable = [...tx.writableStatic];
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    for (const l of tx.lookups) {
      const table = this.read(l.lookupTableAddress);
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

  /** The accounts' state before a transaction runs; writing one evicts it from the program cache. */
  preStates(keys: string[], writable: boolean[]): (AccountState | null)[] {
    const pre: (AccountState | null)[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (writable[i]) this.programs.delete(k);
      pre[i] = this.plainAccounts.get(k) ?? this.peek(k, writable[i]!);
    }
    return pre;
  }

  /**
   * What a transaction's bookkeeping needs of an account: lamports and owner always; data only for
   * accounts it may write (rollback, commitment journal) or token accounts (token balances).
   */
  private peek(address: string, full: boolean): AccountState | null {
    if (!full) {
      const program = this.programs.get(address);
      if (program) return program;
    }
    const a = this.svm.getAccount(addressToBytes(address));
    if (a === null) return null;
    const owner = addressToText(a.owner());
    // Only loader-owned accounts can be executable: skip the native call for everything else.
    const executable = LOADERS.has(owner) && a.executable();
    if (!full && !isTokenProgram(owner)) {
      const state = { lamports: a.lamports(), data: NO_DATA, owner, executable, rentEpoch: RENT_EXEMPT_EPOCH };
      if (executable) this.programs.set(address, state);
      return state;
    }
    return { lamports: a.lamports(), data: a.data(), owner, executable, rentEpoch: RENT_EXEMPT_EPOCH };
  }

  /**
   * An account's state after a transaction ran. One that was system-owned in a transaction that never
   * calls a token program is still not a token account: its lamports (one native call) are all it needs.
   */
  afterState(keys: string[], pre: (AccountState | null)[], i: number, touchesTokens: boolean): AccountState | null {
    const before = pre[i];
    if (!touchesTokens && before && before.owner === SYSTEM_PROGRAM) {
      const lamports = this.svm.getBalance(addressToBytes(keys[i]!));
      return lamports === null ? null : { ...before, lamports, data: NO_DATA };
    }
    return this.peek(keys[i]!, false);
  }

  /**
   * Keeps the exact state of plain system accounts (no data) that only lamport transfers or failures have
   * touched, so the next transaction on them needs no pre-state read. Every other write forgets the account.
   */
  notePlainAccounts(tx: WireTransaction, keys: string[], writable: boolean[], pre: (AccountState | null)[], post: (AccountState | null)[], failed: boolean): void {
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

  /** Puts the written accounts back as they were before a transaction (a failed preflight's fee debit). */
  rollback(keys: string[], writable: boolean[], pre: (AccountState | null)[]): void {
    keys.forEach((k, i) => {
      const p = pre[i];
      if (writable[i]) this.plainAccounts.delete(k);
      if (writable[i] && p) this.svm.setAccount(addressToBytes(k), fromState(p));
    });
  }
}

/** True when every instruction is a System transfer or a compute-budget setting: only lamports can move. */
function onlyLamportTransfers(tx: WireTransaction, keys: string[]): boolean {
  for (const ix of tx.instructions) {
    const program = keys[ix.programAddressIndex];
    if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    if (program !== SYSTEM_PROGRAM || ix.data.length !== 12 || ix.data[0] !== SYSTEM_TRANSFER || ix.data[1] !== 0 || ix.data[2] !== 0 || ix.data[3] !== 0) return false;
  }
  return true;
}
