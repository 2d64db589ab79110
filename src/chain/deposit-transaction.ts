import type { Address } from '@solana/kit';
import { addressBytes } from '../domain/address-codec.ts';
import { associatedTokenAddress } from './associated-token-address.ts';
import { associatedTokenAddressSync } from './program-derived-address.ts';

export interface DepositTransactionInput {
  sender: Address;
  depositOwner: Address;
  mint: Address;
  tokenProgram: Address;
  decimals: number;
  native: boolean;
  amount: bigint;
  blockhash: string;
  lastValidBlockHeight: bigint;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  /** The deposit owner's token account when already derived (it is a function of owner, mint and program). */
  depositAccount?: Address;
}

const SYSTEM_PROGRAM = '11111111111111111111111111111111' as Address;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111' as Address;
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL' as Address;
const RENT_SYSVAR = 'SysvarRent111111111111111111111111111111111' as Address;
/** kit's account order within a role: this collation of the base58 text (see getAddressComparator). */
const collate = new Intl.Collator('en', { caseFirst: 'lower', ignorePunctuation: false, localeMatcher: 'best fit', numeric: false, sensitivity: 'variant', usage: 'sort' }).compare;

export function depositTokenAccount(depositOwner: Address, mint: Address, tokenProgram: Address): Address {
  return associatedTokenAddressSync(depositOwner, mint, tokenProgram);
}

interface Ix {
  program: Address;
  accounts: Address[];
  data: Uint8Array;
}

const u8 = (...b: number[]) => Uint8Array.from(b);
function u32le(v: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
}
function u64le(v: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
}
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);

function shortVec(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if (n === 0) return (out.push(byte), out);
    out.push(byte | 0x80);
  }
}

/**
 * The one transaction the sender signs: compute budget, NON-idempotent creation of the order's one-time
 * deposit token account (so only one of an order's transactions can ever succeed), and the transfer of
 * exactly `amount` into it. Nothing else: no memo, nothing that names Hush or the recipient.
 *
 * Assembled by hand, byte for byte what kit's compileTransaction produces (a test holds it to that):
 * kit's generic pipeline (address maps, a new collator and BigInt base58 per compile) cost ~0.5 ms of
 * every order's CPU for a message whose shape never changes.
 */
export async function buildDepositTransaction(input: DepositTransactionInput): Promise<{ base64: string; depositAccount: Address }> {
  const { sender, tokenProgram, mint } = input;
  const depositAccount = input.depositAccount ?? depositTokenAccount(input.depositOwner, mint, tokenProgram);
  const ixs: Ix[] = [
    { program: COMPUTE_BUDGET_PROGRAM, accounts: [], data: concat(u8(2), u32le(input.computeUnitLimit)) },
    { program: COMPUTE_BUDGET_PROGRAM, accounts: [], data: concat(u8(3), u64le(input.computeUnitPriceMicroLamports)) },
    { program: ASSOCIATED_TOKEN_PROGRAM, accounts: [sender, depositAccount, input.depositOwner, mint, SYSTEM_PROGRAM, tokenProgram], data: u8(0) },
  ];
  const writable = new Set<Address>([depositAccount]);
  if (input.native) {
    ixs.push({ program: SYSTEM_PROGRAM, accounts: [sender, depositAccount], data: concat(u8(2, 0, 0, 0), u64le(input.amount)) });
    // As @solana-program/token's SyncNative: the rent sysvar rides along (the program ignores it).
    ixs.push({ program: tokenProgram, accounts: [depositAccount, RENT_SYSVAR], data: u8(17) });
  } else {
    const source = await associatedTokenAddress(sender, mint, tokenProgram);
    writable.add(source);
    ixs.push({ program: tokenProgram, accounts: [source, mint, depositAccount, sender], data: concat(u8(12), u64le(input.amount), u8(input.decimals)) });
  }
  const readonly = new Set<Address>();
  for (const ix of ixs) {
    readonly.add(ix.program);
    for (const a of ix.accounts) readonly.add(a);
  }
  readonly.delete(sender);
  for (const a of writable) readonly.delete(a);
  const keys: Address[] = [sender, ...[...writable].sort(collate), ...[...readonly].sort(collate)];
  const index = new Map(keys.map((k, i) => [k, i]));
  const parts: (Uint8Array | number[])[] = [[0x80, 1, 0, readonly.size], shortVec(keys.length)];
  for (const k of keys) parts.push(addressBytes(k));
  parts.push(addressBytes(input.blockhash as Address), shortVec(ixs.length));
  for (const ix of ixs) parts.push([index.get(ix.program)!, ...shortVec(ix.accounts.length), ...ix.accounts.map((a) => index.get(a)!), ...shortVec(ix.data.length)], ix.data);
  parts.push([0]); // no address lookup tables
  const message = Buffer.concat(parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p))));
  // One signature slot, empty until the sender signs.
  const wire = Buffer.concat([Uint8Array.of(1), new Uint8Array(64), message]);
  return { base64: wire.toString('base64'), depositAccount };
}
