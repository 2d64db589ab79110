import { getBase58Decoder } from '@solana/kit';
import { base58Decode } from './base58-cache.ts';
import { uiInstruction } from './instruction-parsers.ts';
import type { TransactionMetaJson, TransactionRecord } from './local-chain-types.ts';
import { decodeWireTransaction, type WireTransaction } from './wire-transaction.ts';

const base58Decoder = getBase58Decoder();

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58' | 'binary';
export const TRANSACTION_ENCODINGS: readonly string[] = ['json', 'jsonParsed', 'base64', 'base58', 'binary'];

function signaturesOf(tx: WireTransaction): string[] {
  return tx.signatures.map((s) => base58Decoder.decode(s));
}

/**
 * The validator's parsed account list: static keys from the header, then the lookup-table keys. A key the
 * transaction invokes as a program is never writable (the runtime demotes it), unless the upgradeable
 * loader is among the keys.
 */
export function parsedAccountKeys(tx: WireTransaction, loaded: { writable: string[]; readonly: string[] }) {
  const invoked = new Set(tx.instructions.map((ix) => ix.programAddressIndex));
  const demote = !tx.staticKeys.includes('BPFLoaderUpgradeab1e11111111111111111111111' as (typeof tx.staticKeys)[number]);
  const keys = tx.staticKeys.map((pubkey, i) => ({
    pubkey: pubkey as string,
    writable: tx.writableStatic[i]! && !(demote && invoked.has(i)),
    signer: i < tx.header.numSignerAccounts,
    source: 'transaction',
  }));
  for (const pubkey of loaded.writable) keys.push({ pubkey, writable: true, signer: false, source: 'lookupTable' });
  for (const pubkey of loaded.readonly) keys.push({ pubkey, writable: false, signer: false, source: 'lookupTable' });
  return keys;
}

/** The `transaction` field of getTransaction and of a block's transactions, in the requested encoding. */
export function encodeTransaction(record: TransactionRecord, encoding: TransactionEncoding) {
  if (encoding === 'base64') return [Buffer.from(record.bytes).toString('base64'), 'base64'];
  if (encoding === 'base58') return [base58Decoder.decode(record.bytes), 'base58'];
  if (encoding === 'binary') return base58Decoder.decode(record.bytes);
  const tx = decodeWireTransaction(record.bytes);
  const lookups = tx.lookups.map((l) => ({ accountKey: l.lookupTableAddress, readonlyIndexes: l.readonlyIndexes, writableIndexes: l.writableIndexes }));
  if (encoding === 'jsonParsed') {
    const message: Record<string, unknown> = {
      accountKeys: parsedAccountKeys(tx, record.meta.loadedAddresses),
      instructions: tx.instructions.map((ix) => uiInstruction({ programIdIndex: ix.programAddressIndex, accounts: ix.accountIndices, data: ix.data }, record.accountKeys, null)),
      recentBlockhash: tx.recentBlockhash,
    };
    if (tx.version === 0) message.addressTableLookups = lookups;
    return { message, signatures: signaturesOf(tx) };
  }
  const message: Record<string, unknown> = {
    accountKeys: tx.staticKeys,
    header: {
      numReadonlySignedAccounts: tx.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: tx.header.numReadonlyNonSignerAccounts,
      numRequiredSignatures: tx.header.numSignerAccounts,
    },
    instructions: tx.instructions.map((ix) => ({
      accounts: ix.accountIndices ?? [],
      data: base58Decoder.decode(ix.data ?? new Uint8Array(0)),
      programIdIndex: ix.programAddressIndex,
      stackHeight: null,
    })),
    recentBlockhash: tx.recentBlockhash,
  };
  if (tx.version === 0) message.addressTableLookups = lookups;
  return { message, signatures: signaturesOf(tx) };
}

/** Compiled inner instructions in the validator's parsed form (jsonParsed, and simulateTransaction always). */
export function parsedInnerInstructions(inner: TransactionMetaJson['innerInstructions'], keys: readonly string[]) {
  return inner.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((ix) => uiInstruction({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: base58Decode(ix.data) }, keys, ix.stackHeight)),
  }));
}

/** The `meta` field: jsonParsed parses inner instructions and leaves loadedAddresses out (the keys carry their source). */
export function encodeMeta(record: TransactionRecord, encoding: TransactionEncoding, rewards = true) {
  const meta: Record<string, unknown> = { ...record.meta };
  if (encoding === 'jsonParsed') {
    meta.innerInstructions = parsedInnerInstructions(record.meta.innerInstructions, record.accountKeys);
    delete meta.loadedAddresses;
  }
  if (!rewards) meta.rewards = null;
  return meta;
}

/** A block's transaction with transactionDetails "accounts": signatures, parsed keys and the balance-only meta. */
export function accountsOnly(record: TransactionRecord, rewards: boolean) {
  const tx = decodeWireTransaction(record.bytes);
  const m = record.meta;
  const meta: Record<string, unknown> = {
    err: m.err,
    fee: m.fee,
    postBalances: m.postBalances,
    postTokenBalances: m.postTokenBalances,
    preBalances: m.preBalances,
    preTokenBalances: m.preTokenBalances,
    status: m.status,
  };
  if (rewards) meta.rewards = m.rewards;
  return { transaction: { accountKeys: parsedAccountKeys(tx, m.loadedAddresses), signatures: signaturesOf(tx) }, meta };
}
