import { AccountRole, address, type Address, type Instruction } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { compileMessage, wireTransaction } from './fast-transaction.ts';
import { memoInstruction } from './hush-transactions.ts';
import { associatedTokenAddressAndBump, associatedTokenAddressSync } from '../domain/program-derived-address.ts';

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
  /** The order's sealed record (src/treasury/deposit-record-box.ts), carried as the last instruction's memo. */
  memo?: string;
}

const RENT_SYSVAR = address('SysvarRent111111111111111111111111111111111');

function depositTokenAccount(depositOwner: Address, mint: Address, tokenProgram: Address): Address {
  return associatedTokenAddressSync(depositOwner, mint, tokenProgram);
}

/**
 * The deposit owner's token account, and the bump seeds the associated-token program tries in vain
 * before it when the deposit creates it (it pays for each): one address search for both.
 */
export function depositAccountOf(depositOwner: Address, mint: Address, tokenProgram: Address): { depositAccount: Address; extraBumpTries: number } {
  const [depositAccount, bump] = associatedTokenAddressAndBump(depositOwner, mint, tokenProgram);
  return { depositAccount, extraBumpTries: 255 - bump };
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
const ro = (address: Address) => ({ address, role: AccountRole.READONLY });
const w = (address: Address) => ({ address, role: AccountRole.WRITABLE });

/**
 * The one transaction the sender signs: compute budget, NON-idempotent creation of the order's one-time
 * deposit token account (so only one of an order's transactions can ever succeed), and the transfer of
 * exactly `amount` into it, and last the order's sealed record as a memo (docs/decisions.md "The deposit carries its
 * order's record": random bytes of one length to anyone without the seed). Nothing else: nothing that names Hush or
 * the recipient.
 *
 * The instructions are those of @solana-program's builders with their data encoded here, compiled by
 * compileMessage: byte for byte kit's output (a test holds it to that), without the ~0.5 ms of kit's codec
 * pipeline per order.
 */
export async function buildDepositTransaction(input: DepositTransactionInput): Promise<{ base64: string; depositAccount: Address }> {
  const { sender, tokenProgram, mint } = input;
  const depositAccount = input.depositAccount ?? depositTokenAccount(input.depositOwner, mint, tokenProgram);
  const payer = { address: sender, role: AccountRole.WRITABLE_SIGNER };
  const instructions: Instruction[] = [
    { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data: concat(u8(2), u32le(input.computeUnitLimit)) },
    { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data: concat(u8(3), u64le(input.computeUnitPriceMicroLamports)) },
    {
      programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      accounts: [payer, w(depositAccount), ro(input.depositOwner), ro(mint), ro(SYSTEM_PROGRAM_ADDRESS), ro(tokenProgram)],
      data: u8(0),
    },
  ];
  if (input.native) {
    instructions.push({ programAddress: SYSTEM_PROGRAM_ADDRESS, accounts: [payer, w(depositAccount)], data: concat(u8(2, 0, 0, 0), u64le(input.amount)) });
    // As @solana-program/token's SyncNative: the rent sysvar rides along (the program ignores it).
    instructions.push({ programAddress: tokenProgram, accounts: [w(depositAccount), ro(RENT_SYSVAR)], data: u8(17) });
  } else {
    const source = associatedTokenAddress(sender, mint, tokenProgram);
    instructions.push({
      programAddress: tokenProgram,
      accounts: [w(source), ro(mint), w(depositAccount), { address: sender, role: AccountRole.READONLY_SIGNER }],
      data: concat(u8(12), u64le(input.amount), u8(input.decimals)),
    });
  }
  if (input.memo !== undefined) instructions.push(memoInstruction(input.memo));
  const compiled = compileMessage(sender, instructions, input.blockhash);
  if (!compiled) throw new Error('deposit transaction: unexpected account layout');
  // One signature slot per signer (the sender alone), empty until the sender signs.
  return { base64: wireTransaction(compiled, []).toString('base64'), depositAccount };
}
