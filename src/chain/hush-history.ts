import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import type { ChainView, LandedTransaction } from './chain-view.ts';
import { MEMO_PROGRAM_ADDRESS } from './hush-transactions.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);

/** A value moved by one instruction: a system transfer (lamports) or a token transfer (base units). */
export interface ReadTransfer {
  source: string;
  destination: string;
  amount: bigint;
  authority: string;
}

/** A landed transaction as the chain check reads it: who signed it, its last memo, what it moved and closed. */
export interface ReadTransaction {
  signature: string;
  slot: bigint;
  /** When its block was made (seconds since the epoch), if the node knows. */
  blockTime: number | null;
  /** The blockhash it was signed with. */
  blockhash: string;
  err: unknown;
  /** Its signed bytes, base64: what the store would have recorded had it not forgotten it. */
  wire: string;
  /** Every account that signed it (the fee payer first). */
  signers: string[];
  /** Its account keys in the order its balances index them (static, then loaded). */
  accounts: string[];
  /** The data of its last instruction when that is a memo (v2), as text. */
  memo: string | null;
  transfers: ReadTransfer[];
  /** Token accounts it closed (CloseAccount), with where their lamports went. */
  closed: { account: string; destination: string }[];
  meta: LandedTransaction['meta'];
}

interface LegacyOrV0Message {
  header: { numSignerAccounts: number };
  lifetimeToken: string;
  staticAccounts: readonly string[];
  instructions?: readonly { programAddressIndex: number; accountIndices?: readonly number[]; data?: Uint8Array }[];
}

const u64 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true);

/** Decodes a landed transaction's wire bytes (kit's decoders; the few instruction layouts Hush writes, by hand). */
export function readWire(signature: string, slot: bigint, wire: string, meta: LandedTransaction['meta'], blockTime: number | null = null): ReadTransaction {
  const tx = getTransactionDecoder().decode(Buffer.from(wire, 'base64'));
  // Legacy and v0 messages (the only ones Hush and its partners' wallets sign) share this shape.
  const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as unknown as LegacyOrV0Message;
  const keys = [...msg.staticAccounts.map(String), ...(meta?.loadedAddresses?.writable ?? []), ...(meta?.loadedAddresses?.readonly ?? [])];
  const transfers: ReadTransfer[] = [];
  const closed: { account: string; destination: string }[] = [];
  let memo: string | null = null;
  const instructions = msg.instructions ?? [];
  instructions.forEach((ix, i) => {
    const program = keys[ix.programAddressIndex]!;
    const data = ix.data ?? new Uint8Array();
    const acc = (n: number) => keys[ix.accountIndices?.[n] ?? -1] ?? '';
    if (program === MEMO_PROGRAM_ADDRESS && i === instructions.length - 1) memo = Buffer.from(data).toString('utf8');
    else if (program === SYSTEM_PROGRAM && data.length === 12 && data[0] === 2 && data[1] === 0) transfers.push({ source: acc(0), destination: acc(1), amount: u64(data, 4), authority: acc(0) });
    else if (TOKEN_PROGRAMS.has(program) && data[0] === 12 && data.length >= 10) transfers.push({ source: acc(0), destination: acc(2), authority: acc(3), amount: u64(data, 1) });
    else if (TOKEN_PROGRAMS.has(program) && data[0] === 3 && data.length >= 9) transfers.push({ source: acc(0), destination: acc(1), authority: acc(2), amount: u64(data, 1) });
    else if (TOKEN_PROGRAMS.has(program) && data[0] === 9) closed.push({ account: acc(0), destination: acc(1) });
  });
  return { signature, slot, blockTime, blockhash: msg.lifetimeToken, err: meta?.err ?? null, wire, signers: keys.slice(0, msg.header.numSignerAccounts), accounts: keys, memo, transfers, closed, meta };
}

/** A token account's change in a transaction (from its balances before and after; 0 when it held none). */
export function tokenDelta(tx: ReadTransaction, account: string): bigint {
  const i = tx.accounts.indexOf(account);
  if (i < 0) return 0n;
  const at = (list: { accountIndex: number; uiTokenAmount: { amount: string } }[] | null | undefined) => BigInt(list?.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? '0');
  return at(tx.meta?.postTokenBalances) - at(tx.meta?.preTokenBalances);
}

/**
 * Every signature of `address` that landed after `until` (all of its history without one), oldest first,
 * paging back 1,000 at a time: the pages a start-up scan reads are its history's length over 1,000.
 */
export async function historySince(view: Pick<ChainView, 'signaturePage'>, address: string, until: string | null): Promise<{ signature: string; slot: bigint; err: unknown }[]> {
  const out: { signature: string; slot: bigint; err: unknown }[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await view.signaturePage(address, { until: until ?? undefined, before, limit: 1000 });
    out.push(...page);
    if (page.length < 1000) break;
    before = page[page.length - 1]!.signature;
  }
  return out.reverse();
}

/** The transactions of `signatures`, read in batches of 100; throws when the chain does not show one it listed. */
export async function readTransactions(view: Pick<ChainView, 'wireTransactionsMany'>, signatures: string[]): Promise<ReadTransaction[]> {
  const out: ReadTransaction[] = [];
  for (let i = 0; i < signatures.length; i += 100) {
    const part = signatures.slice(i, i + 100);
    const got = await view.wireTransactionsMany(part);
    got.forEach((g, j) => {
      if (!g) throw new Error(`transaction ${part[j]} listed in history but not readable yet`);
      out.push(readWire(part[j]!, g.slot, g.wire, g.meta, g.blockTime));
    });
  }
  return out;
}

/** The owner of a token account a transaction touched, as its balances name it (a token payout's recipient). */
export function tokenOwner(tx: ReadTransaction, account: string): string | undefined {
  const i = tx.accounts.indexOf(account);
  return tx.meta?.postTokenBalances?.find((b) => b.accountIndex === i)?.owner;
}
