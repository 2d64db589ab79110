import {
  AccountRole,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type AccountMeta,
  type Address,
  type Instruction,
  type InstructionWithAccounts,
  type InstructionWithData,
  type ReadonlyUint8Array,
  type Transaction,
} from '@solana/kit';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  identifyComputeBudgetInstruction,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS, SystemInstruction, identifySystemInstruction, parseTransferSolInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  AssociatedTokenInstruction,
  TokenInstruction,
  findAssociatedTokenPda,
  identifyAssociatedTokenInstruction,
  identifyTokenInstruction,
  parseCreateAssociatedTokenInstruction,
  parseSyncNativeInstruction,
  parseTransferCheckedInstruction,
} from '@solana-program/token';
import type { Quote, Token } from './types.ts';

/** SPL Memo (v2): the program the order's sealed record rides in, the deposit's last instruction. */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;
/**
 * The sealed record's length in base64 characters: Hush's record of the order (its terms, encrypted to Hush's own key,
 * random bytes to anyone else: docs/spec.md §10), always exactly this long.
 */
export const DEPOSIT_RECORD_LENGTH = 224;
const BASE64_CHAR = /^[A-Za-z0-9+/=]$/;

/** Caps on the compute budget a deposit may ask for: the sender pays up to limit × price as priority fee. */
export const DEFAULT_MAX_COMPUTE_UNIT_LIMIT = 200_000;
/** 1 lamport per compute unit: at most 0.0002 SOL of priority fee at the default limit cap. */
export const DEFAULT_MAX_COMPUTE_UNIT_PRICE = 1_000_000n;

export type DepositRefusal =
  | 'undecodable'
  | 'not_v0'
  | 'lookup_tables'
  | 'fee_payer'
  | 'signers'
  | 'asset_mismatch'
  | 'unexpected_program'
  | 'unexpected_instruction'
  | 'instruction_order'
  | 'compute_budget'
  | 'create_account'
  | 'transfer'
  | 'record'
  | 'names_recipient';

/** The deposit transaction is not the one docs/spec.md §4 allows; `reason` says which rule it broke. Never sign it. */
export class DepositVerificationError extends Error {
  override readonly name = 'DepositVerificationError';
  constructor(
    readonly reason: DepositRefusal,
    message: string,
  ) {
    super(`deposit transaction refused (${reason}): ${message}`);
  }
}

export interface VerifyDepositOptions {
  quote: Pick<Quote, 'amountIn' | 'sourceAssetId'>;
  senderAddress: string;
  /** The source asset as GET /tokens lists it. */
  asset: Pick<Token, 'assetId' | 'mint' | 'tokenProgram' | 'decimals' | 'native'>;
  /** When given, the transaction must not name it anywhere. */
  recipientAddress?: string;
  maxComputeUnitLimit?: number;
  maxComputeUnitPriceMicroLamports?: bigint;
}

export interface VerifiedDeposit {
  transaction: Transaction;
  /** The one-time token account the transaction creates and funds. */
  depositAccount: Address;
  computeUnitLimit: number | null;
  computeUnitPriceMicroLamports: bigint | null;
}

type Ix = Instruction & InstructionWithAccounts<readonly AccountMeta[]> & InstructionWithData<ReadonlyUint8Array>;

const refuse = (reason: DepositRefusal, message: string): never => {
  throw new DepositVerificationError(reason, message);
};

function decode(base64: string): { transaction: Transaction; message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']> } {
  try {
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
    return { transaction, message: getCompiledTransactionMessageDecoder().decode(transaction.messageBytes) };
  } catch (e) {
    return refuse('undecodable', (e as Error).message);
  }
}

/** A parser of @solana-program/* on an instruction of the wrong shape throws; that is a refusal too. */
function parse<T>(reason: DepositRefusal, ix: Ix, size: number, accounts: number, parser: (ix: Ix) => T): T {
  if (ix.data.length !== size) refuse(reason, `${ix.programAddress}: ${ix.data.length} data bytes, expected ${size}`);
  if (ix.accounts.length !== accounts) refuse(reason, `${ix.programAddress}: ${ix.accounts.length} accounts, expected ${accounts}`);
  try {
    return parser(ix);
  } catch (e) {
    return refuse(reason, (e as Error).message);
  }
}

/**
 * Checks, before anything signs it, that an order's unsigned deposit transaction is exactly what docs/spec.md §4
 * allows: v0 without lookup tables; the sender the fee payer and only signer; a compute budget under the
 * caps; the NON-idempotent creation of the order's one-time token account (so no other transaction of the
 * order can also land); the transfer of exactly `amountIn` of the quoted asset into that account
 * (TransferChecked, or for SOL a system transfer + SyncNative); last, at most one memo holding Hush's sealed
 * record of the order (exactly DEPOSIT_RECORD_LENGTH base64 characters, no accounts); nothing else and nothing
 * naming the recipient. Throws DepositVerificationError otherwise.
 */
export async function verifyDepositTransaction(base64: string, opts: VerifyDepositOptions): Promise<VerifiedDeposit> {
  const { transaction, message: decoded } = decode(base64);
  const sender = opts.senderAddress as Address;
  const { asset } = opts;
  if (opts.quote.sourceAssetId !== asset.assetId) refuse('asset_mismatch', `the quote is for ${opts.quote.sourceAssetId}, the asset given is ${asset.assetId}`);
  if (decoded.version !== 0) refuse('not_v0', `version ${String(decoded.version)}`);
  const message = decoded as Extract<typeof decoded, { version: 0 }>;
  if ((message.addressTableLookups?.length ?? 0) > 0) refuse('lookup_tables', 'the transaction loads accounts from address lookup tables');
  const accounts = message.staticAccounts;
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  if (accounts[0] !== sender) refuse('fee_payer', `the fee payer is ${accounts[0]}, not the sender`);
  if (numSignerAccounts !== 1 || numReadonlySignerAccounts !== 0) refuse('signers', `${numSignerAccounts} signers; the sender alone must sign`);
  const slots = Object.keys(transaction.signatures);
  if (slots.length !== 1 || slots[0] !== sender) refuse('signers', `signature slots for ${slots.join(', ')}`);
  if (opts.recipientAddress && accounts.includes(opts.recipientAddress as Address)) refuse('names_recipient', 'the recipient appears in the transaction');

  const role = (i: number): AccountRole => {
    const writable = i < numSignerAccounts - numReadonlySignerAccounts || (i >= numSignerAccounts && i < accounts.length - numReadonlyNonSignerAccounts);
    const signer = i < numSignerAccounts;
    return signer ? (writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER) : writable ? AccountRole.WRITABLE : AccountRole.READONLY;
  };
  const instructions: Ix[] = message.instructions.map((ix) => {
    const programAddress = accounts[ix.programAddressIndex];
    const metas = (ix.accountIndices ?? []).map((i) => ({ address: accounts[i], role: role(i) }));
    if (!programAddress || metas.some((m) => !m.address)) refuse('undecodable', 'an instruction names an account index out of range');
    return { programAddress: programAddress!, accounts: metas as AccountMeta[], data: ix.data ?? new Uint8Array() };
  });

  // 0. Last, at most one memo: Hush's sealed record of the order, of its one length, naming no account.
  const last = instructions[instructions.length - 1];
  const recorded = last?.programAddress === MEMO_PROGRAM_ADDRESS;
  if (recorded) {
    if (last.accounts.length !== 0) refuse('record', 'the memo names accounts');
    if (last.data.length !== DEPOSIT_RECORD_LENGTH || ![...last.data].every((b) => BASE64_CHAR.test(String.fromCharCode(b)))) {
      refuse('record', `the memo is not a sealed record (${last.data.length} bytes, expected ${DEPOSIT_RECORD_LENGTH} base64 characters)`);
    }
    instructions.pop();
  }

  const used = new Set<string>([sender, ...(recorded ? [MEMO_PROGRAM_ADDRESS] : []), ...instructions.flatMap((ix) => [ix.programAddress, ...ix.accounts.map((a) => a.address)])]);
  const unused = accounts.find((a) => !used.has(a));
  if (unused) refuse('unexpected_instruction', `account ${unused} is listed but used by no instruction`);

  // 1. Compute budget first: at most one limit and one price, each under its cap.
  let computeUnitLimit: number | null = null;
  let computeUnitPriceMicroLamports: bigint | null = null;
  let i = 0;
  for (; i < instructions.length && instructions[i]!.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS; i++) {
    const ix = instructions[i]!;
    const kind = parse('compute_budget', ix, ix.data.length, 0, identifyComputeBudgetInstruction);
    if (kind === ComputeBudgetInstruction.SetComputeUnitLimit && computeUnitLimit === null) {
      computeUnitLimit = parse('compute_budget', ix, 5, 0, parseSetComputeUnitLimitInstruction).data.units;
      const cap = opts.maxComputeUnitLimit ?? DEFAULT_MAX_COMPUTE_UNIT_LIMIT;
      if (computeUnitLimit > cap) refuse('compute_budget', `compute unit limit ${computeUnitLimit} over the cap ${cap}`);
    } else if (kind === ComputeBudgetInstruction.SetComputeUnitPrice && computeUnitPriceMicroLamports === null) {
      computeUnitPriceMicroLamports = BigInt(parse('compute_budget', ix, 9, 0, parseSetComputeUnitPriceInstruction).data.microLamports);
      const cap = opts.maxComputeUnitPriceMicroLamports ?? DEFAULT_MAX_COMPUTE_UNIT_PRICE;
      if (computeUnitPriceMicroLamports > cap) refuse('compute_budget', `compute unit price ${computeUnitPriceMicroLamports} over the cap ${cap}`);
    } else refuse('compute_budget', `compute-budget instruction ${ComputeBudgetInstruction[kind] ?? kind} is not allowed here`);
  }
  const rest = instructions.slice(i);
  const expected = asset.native ? 3 : 2;
  for (const ix of rest) {
    const allowed = [ASSOCIATED_TOKEN_PROGRAM_ADDRESS, asset.tokenProgram, ...(asset.native ? [SYSTEM_PROGRAM_ADDRESS] : [])];
    if (ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS) refuse('instruction_order', 'compute-budget instructions come first');
    if (!allowed.includes(ix.programAddress)) refuse('unexpected_program', `program ${ix.programAddress} is not allowed in a deposit`);
  }
  if (rest.length !== expected) refuse('unexpected_instruction', `${rest.length} instructions after the compute budget, expected ${expected}`);

  // 2. The NON-idempotent creation of the order's token account, paid by the sender.
  const create = rest[0]!;
  if (create.programAddress !== ASSOCIATED_TOKEN_PROGRAM_ADDRESS) refuse('instruction_order', 'the deposit account must be created first');
  const createKind = parse('create_account', create, 1, 6, identifyAssociatedTokenInstruction);
  if (createKind !== AssociatedTokenInstruction.CreateAssociatedToken) refuse('create_account', 'only the non-idempotent create is allowed (so the order can be funded once)');
  const c = parse('create_account', create, 1, 6, parseCreateAssociatedTokenInstruction).accounts;
  if (c.payer.address !== sender) refuse('create_account', 'the sender must pay for the deposit account');
  if (c.mint.address !== asset.mint || c.tokenProgram.address !== asset.tokenProgram) refuse('create_account', 'the deposit account is for another mint or token program');
  if (c.systemProgram.address !== SYSTEM_PROGRAM_ADDRESS) refuse('create_account', 'wrong system program');
  if (c.owner.address === sender) refuse('create_account', "the deposit account must not be the sender's own");
  const [depositAccount] = await findAssociatedTokenPda({ owner: c.owner.address, mint: asset.mint as Address, tokenProgram: asset.tokenProgram as Address });
  if (c.ata.address !== depositAccount) refuse('create_account', 'the created account is not the associated token account of its owner');

  // 3. Exactly amountIn into that account.
  const amount = BigInt(opts.quote.amountIn);
  if (asset.native) {
    const [move, sync] = [rest[1]!, rest[2]!];
    if (move.programAddress !== SYSTEM_PROGRAM_ADDRESS || sync.programAddress !== asset.tokenProgram) refuse('instruction_order', 'SOL: a system transfer, then SyncNative');
    if (parse('transfer', move, 12, 2, identifySystemInstruction) !== SystemInstruction.TransferSol) refuse('transfer', 'only a plain system transfer is allowed');
    const t = parse('transfer', move, 12, 2, parseTransferSolInstruction);
    if (t.accounts.source.address !== sender) refuse('transfer', 'the SOL must come from the sender');
    if (t.accounts.destination.address !== depositAccount) refuse('transfer', 'the SOL must go into the created deposit account');
    if (t.data.amount !== amount) refuse('transfer', `transfers ${t.data.amount} lamports, the quote says ${amount}`);
    const syncKind = parse('transfer', sync, 1, sync.accounts.length, identifyTokenInstruction);
    if (syncKind !== TokenInstruction.SyncNative || sync.accounts.length < 1 || sync.accounts.length > 2) refuse('transfer', 'the last instruction must be SyncNative');
    if (parseSyncNativeInstruction(sync).accounts.account.address !== depositAccount) refuse('transfer', 'SyncNative must name the deposit account');
    if (sync.accounts[1] && sync.accounts[1].address !== 'SysvarRent111111111111111111111111111111111') refuse('transfer', 'SyncNative names an unexpected account');
  } else {
    const move = rest[1]!;
    if (move.programAddress !== asset.tokenProgram) refuse('instruction_order', 'the token transfer comes after the create');
    if (parse('transfer', move, 10, 4, identifyTokenInstruction) !== TokenInstruction.TransferChecked) refuse('transfer', 'only TransferChecked is allowed');
    const t = parse('transfer', move, 10, 4, parseTransferCheckedInstruction);
    const [source] = await findAssociatedTokenPda({ owner: sender, mint: asset.mint as Address, tokenProgram: asset.tokenProgram as Address });
    if (t.accounts.authority.address !== sender || t.accounts.source.address !== source) refuse('transfer', "the tokens must come from the sender's own token account");
    if (t.accounts.mint.address !== asset.mint || t.data.decimals !== asset.decimals) refuse('transfer', 'wrong mint or decimals');
    if (t.accounts.destination.address !== depositAccount) refuse('transfer', 'the tokens must go into the created deposit account');
    if (t.data.amount !== amount) refuse('transfer', `transfers ${t.data.amount} base units, the quote says ${amount}`);
  }
  return { transaction, depositAccount, computeUnitLimit, computeUnitPriceMicroLamports };
}
