import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { Asset } from '../config/assets.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { compileAndSign, type SigningThread } from './fast-transaction.ts';

export interface SignedTransaction {
  signature: string;
  wire: string;
  lastValidBlockHeight: bigint;
}

export interface TxShape {
  feePayer: KeyPairSigner;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  blockhash: { blockhash: string; lastValidBlockHeight: bigint };
  /** Where its signatures are made (fast-transaction.ts); absent, the thread pool. */
  signing?: SigningThread;
  /**
   * The sealed record it carries (src/treasury/record-cipher.ts), as the last instruction's memo: set by the
   * builder's caller, since it names the order the transaction moves money for.
   */
  memo?: string;
}

/** SPL Memo (v2): it checks only that the data is UTF-8 and that any accounts given signed (none are). */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;

/** The memo instruction that carries a transaction's record: last, so no other instruction's index moves. */
export function memoInstruction(memo: string): Instruction {
  return { programAddress: MEMO_PROGRAM_ADDRESS, data: new Uint8Array(Buffer.from(memo, 'utf8')) };
}

/** A Hush transaction's shape from the configured compute budget: the worker's and the operator commands' alike. */
export function txShape(
  feePayer: KeyPairSigner,
  budget: { computeUnitLimit: number; computeUnitPriceMicroLamports: bigint },
  blockhash: { blockhash: string; lastValidBlockHeight: bigint },
  signing?: SigningThread,
): TxShape {
  return { feePayer, computeUnitLimit: budget.computeUnitLimit, computeUnitPriceMicroLamports: budget.computeUnitPriceMicroLamports, blockhash, signing };
}

/** Every Hush transaction has this shape: common fee payer, same compute budget, its record last, fresh blockhash. */
export async function signShaped(shape: TxShape, instructions: Instruction[]): Promise<SignedTransaction> {
  const all = withComputeBudget(shape, shape.memo === undefined ? instructions : [...instructions, memoInstruction(shape.memo)]);
  // The same bytes as kit's path below, without its CPU (see fast-transaction.ts); kit's path when a key
  // is not a native one.
  const fast = await compileAndSign(shape.feePayer, all, shape.blockhash.blockhash, shape.signing);
  if (fast) return { ...fast, lastValidBlockHeight: shape.blockhash.lastValidBlockHeight };
  return signWithKit(shape, all);
}

/** The compute-budget instructions every Hush transaction starts with: a payout's own follow them. */
export const COMPUTE_BUDGET_INSTRUCTIONS = 2;

export function withComputeBudget(shape: TxShape, instructions: Instruction[]): Instruction[] {
  return [getSetComputeUnitLimitInstruction({ units: shape.computeUnitLimit }), getSetComputeUnitPriceInstruction({ microLamports: shape.computeUnitPriceMicroLamports }), ...instructions];
}

/** kit's own compile-and-sign: the reference the fast path matches byte for byte. */
export async function signWithKit(shape: TxShape, all: Instruction[]): Promise<SignedTransaction> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(shape.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(shape.blockhash.blockhash), lastValidBlockHeight: shape.blockhash.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(all, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { signature: getSignatureFromTransaction(signed), wire: getBase64EncodedWireTransaction(signed), lastValidBlockHeight: shape.blockhash.lastValidBlockHeight };
}

/**
 * Pays `asset` to a recipient in one transaction: a transfer from each source pool (one, unless no single
 * pool covers the amount; each signs). Token payouts always carry the idempotent ATA creation, once.
 */
export async function buildPayout(shape: TxShape, p: PayoutParams): Promise<SignedTransaction> {
  return signShaped(shape, await payoutInstructions(shape, p));
}

export interface PayoutSource {
  pool: KeyPairSigner;
  poolHolding: Address;
  amount: bigint;
}

export interface PayoutParams {
  asset: Asset;
  sources: readonly PayoutSource[];
  recipient: Address;
  /** An order refund's: the deposit account's rent, lamports the fee payer sends the recipient (the sender) beside the refund. */
  rentBack?: bigint;
}

export async function payoutInstructions(shape: TxShape, p: PayoutParams): Promise<Instruction[]> {
  if (p.sources.length === 0) throw new Error('a payout needs a source pool');
  // Last, so the transfers keep their places (recipient-refused.ts reads a failed payout's instruction index).
  const rent = p.rentBack ? [getTransferSolInstruction({ source: shape.feePayer, destination: p.recipient, amount: p.rentBack })] : [];
  if (p.asset.native) return [...p.sources.map((s) => getTransferSolInstruction({ source: s.pool, destination: p.recipient, amount: s.amount })), ...rent];
  const mint = p.asset.mint;
  const tokenProgram = p.asset.tokenProgram;
  const ata = associatedTokenAddress(p.recipient, mint, tokenProgram);
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer: shape.feePayer, ata, owner: p.recipient, mint, tokenProgram }),
    ...p.sources.map((s) =>
      getTransferCheckedInstruction({ source: s.poolHolding, mint, destination: ata, authority: s.pool, amount: s.amount, decimals: p.asset.decimals }, { programAddress: tokenProgram }),
    ),
    ...rent,
  ];
}

export interface SweepItem {
  owner: KeyPairSigner;
  depositAccount: Address;
  /** The deposit account's token balance, all of which moves. */
  amount: bigint;
  /**
   * The deposit account was closed (or never made) and SOL was sent to its address anyway: create it
   * again first (the lamports there pay its rent), so the close can move them.
   */
  reopen?: boolean;
}

/**
 * Moves several deposits into one pool and closes the deposit accounts. Token deposits: transfer the
 * balance, close with the rent to the fee payer. SOL deposits (wrapped): closing sends every lamport —
 * amount and rent — straight to the pool wallet.
 */
export async function buildSweep(shape: TxShape, s: SweepParams): Promise<SignedTransaction> {
  return signShaped(shape, sweepInstructions(shape, s));
}

export interface SweepParams {
  asset: Asset;
  poolWallet: Address;
  poolHolding: Address;
  items: SweepItem[];
}

export function sweepInstructions(shape: TxShape, s: SweepParams): Instruction[] {
  const mint = s.asset.mint;
  const tokenProgram = s.asset.tokenProgram;
  const instructions: Instruction[] = [];
  for (const item of s.items) {
    if (item.reopen) {
      // The lamports already there pay the rent, so the payer pays nothing. The owner (no SOL of its own)
      // rather than the fee payer: a reopen that finds the funds gone fails instead of buying the rent.
      instructions.push(getCreateAssociatedTokenIdempotentInstruction({ payer: item.owner, ata: item.depositAccount, owner: item.owner.address, mint, tokenProgram }));
    }
    if (!s.asset.native) {
      instructions.push(
        getTransferCheckedInstruction(
          { source: item.depositAccount, mint, destination: s.poolHolding, authority: item.owner, amount: item.amount, decimals: s.asset.decimals },
          { programAddress: tokenProgram },
        ),
      );
    }
    instructions.push(
      getCloseAccountInstruction(
        { account: item.depositAccount, destination: s.asset.native ? s.poolWallet : shape.feePayer.address, owner: item.owner },
        { programAddress: tokenProgram },
      ),
    );
  }
  return instructions;
}

/** Funds held by a deposit owner outside its deposit account: one token account, or the owner's own lamports. */
export type StrayHolding =
  | { kind: 'token'; account: Address; mint: Address; tokenProgram: Address; amount: bigint; decimals: number; native: boolean; closable: boolean }
  | { kind: 'lamports'; account: Address; amount: bigint };

/**
 * Gives a stray holding back to `to`. A token account's balance goes to `to`'s associated account and
 * the account is closed, its rent to `to` too. When `to` has no associated account yet, Hush's fee payer
 * creates it and takes the closed account's rent instead, so returning dust of a throwaway mint costs
 * Hush no rent. Wrapped SOL is closed outright (every lamport to `to`); the owner's own lamports go by a
 * system transfer.
 */
export async function buildStrayReturn(shape: TxShape, owner: KeyPairSigner, holding: StrayHolding, to: Address, createRecipientAccount: boolean): Promise<SignedTransaction> {
  return signShaped(shape, strayReturnInstructions(shape, owner, holding, to, createRecipientAccount));
}

function strayReturnInstructions(shape: TxShape, owner: KeyPairSigner, h: StrayHolding, to: Address, createRecipientAccount: boolean): Instruction[] {
  if (h.kind === 'lamports') return [getTransferSolInstruction({ source: owner, destination: to, amount: h.amount })];
  const close = (destination: Address) => (h.closable ? [getCloseAccountInstruction({ account: h.account, destination, owner }, { programAddress: h.tokenProgram })] : []);
  if (h.native || h.amount === 0n) return close(to);
  const ata = associatedTokenAddress(to, h.mint, h.tokenProgram);
  return [
    ...(createRecipientAccount ? [getCreateAssociatedTokenIdempotentInstruction({ payer: shape.feePayer, ata, owner: to, mint: h.mint, tokenProgram: h.tokenProgram })] : []),
    getTransferCheckedInstruction({ source: h.account, mint: h.mint, destination: ata, authority: owner, amount: h.amount, decimals: h.decimals }, { programAddress: h.tokenProgram }),
    ...close(createRecipientAccount ? shape.feePayer.address : to),
  ];
}
