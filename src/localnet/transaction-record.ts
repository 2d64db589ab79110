import { Account, FailedTransactionMetadata, type TransactionMetadata } from 'litesvm/dist/internal.js';
import { getAddressDecoder, getBase58Decoder } from '@solana/kit';
import { addressToBytes, addressToText } from './base58-cache.ts';
import { transactionFee } from './fee-schedule.ts';
import { RENT_EXEMPT_EPOCH, type AccountState, type TokenBalanceJson, type TransactionMetaJson, type TransactionRecord } from './local-chain-types.ts';
import { isTokenProgram, parseTokenAccount, uiTokenAmount } from './token-accounts.ts';
import { transactionErrorJson } from './transaction-errors.ts';
import type { WireTransaction } from './wire-transaction.ts';

const addressDecoder = getAddressDecoder();
const base58Decoder = getBase58Decoder();
export const NO_DATA = new Uint8Array(0);

/** The RPC record of an executed transaction, from its accounts before and after. */
export function transactionRecord(
  tx: WireTransaction,
  keys: string[],
  loaded: { writable: string[]; readonly: string[] },
  pre: (AccountState | null)[],
  post: (AccountState | null)[],
  result: TransactionMetadata | FailedTransactionMetadata,
  blockTime: number,
  slot: bigint,
  mints: { decimalsOf(mint: string): number | null },
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
    preTokenBalances: tokenBalances(pre, mints),
    postTokenBalances: tokenBalances(post, mints),
    innerInstructions,
    logMessages: logs,
    rewards: [],
    loadedAddresses: loaded,
    computeUnitsConsumed: meta.computeUnitsConsumed(),
  };
  if (rd && rdData.length > 0) metaJson.returnData = { programId: addressDecoder.decode(rd.programId()), data: [Buffer.from(rdData).toString('base64'), 'base64'] };
  return { signature: tx.signature, slot, blockTime, bytes: tx.bytes, version: tx.version, meta: metaJson, accountKeys: keys };
}

function tokenBalances(accounts: (AccountState | null)[], mints: { decimalsOf(mint: string): number | null }): TokenBalanceJson[] {
  const out: TokenBalanceJson[] = [];
  accounts.forEach((acc, accountIndex) => {
    if (!acc || !isTokenProgram(acc.owner)) return;
    const t = parseTokenAccount(acc.owner, acc.data);
    if (!t) return;
    const decimals = mints.decimalsOf(t.mint);
    if (decimals === null) return;
    out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: acc.owner, uiTokenAmount: uiTokenAmount(t.amount, decimals) });
  });
  return out;
}

/**
 * The ledger line for a landed transaction, built by hand: the generic bigint-aware JSON writer is
 * regex-based and was a visible share of the per-transaction cost. Same output shape as ChainFiles.append.
 */
export function ledgerLine(seq: number, r: TransactionRecord): string {
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
export function innerInstructionsJson(meta: TransactionMetadata): TransactionMetaJson['innerInstructions'] {
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

export function toState(a: Account): AccountState {
  return { lamports: a.lamports(), data: a.data(), owner: addressToText(a.owner()), executable: a.executable(), rentEpoch: RENT_EXEMPT_EPOCH };
}

export function fromState(s: AccountState): Account {
  return new Account(s.lamports, s.data, addressToBytes(s.owner), s.executable, 0n);
}
