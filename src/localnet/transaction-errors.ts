import * as internal from 'litesvm/dist/internal.js';
import runtime from 'litesvm/dist/internal.js';
import type { SubmitResult, TransactionErrorJson } from './local-chain-types.ts';
export type { TransactionErrorJson };
import type { WireTransaction } from './wire-transaction.ts';


function reverse(e: unknown, names: readonly string[]): Map<number, string> {
  const m = new Map<number, string>(names.map((name, i) => [i, name]));
  if (e && typeof e === 'object') for (const [k, v] of Object.entries(e)) if (typeof v === 'number') m.set(v, k);
  return m;
}

// The enums are `const enum` in the typings. The native binding exports them as bare functions with no
// members, so the values are listed here in declaration order (value = index), as in litesvm's typings.
const TRANSACTION_ERROR_NAMES = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks', 'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData', 'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit', 'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;
const INSTRUCTION_ERROR_NAMES = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall', 'InsufficientFunds',
  'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized', 'UninitializedAccount', 'UnbalancedInstruction',
  'ModifiedProgramId', 'ExternalAccountLamportSpend', 'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified',
  'DuplicateAccountIndex', 'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId', 'CallDepth',
  'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded',
  'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;
const enums = runtime as unknown as Record<string, unknown>;
const transactionErrors = reverse(enums['TransactionErrorFieldless'], TRANSACTION_ERROR_NAMES);
const instructionErrors = reverse(enums['InstructionErrorFieldless'], INSTRUCTION_ERROR_NAMES);

function instructionErrorJson(err: unknown): unknown {
  if (typeof err === 'number') return instructionErrors.get(err) ?? 'GenericError';
  if (err instanceof internal.InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof internal.InstructionErrorBorshIo) return 'BorshIoError';
  return 'GenericError';
}

/** Maps a LiteSVM error object to the RPC's JSON error. */
export function transactionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return transactionErrors.get(err) ?? 'SanitizeFailure';
  if (err instanceof internal.TransactionErrorInstructionError) return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  if (err instanceof internal.TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof internal.TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof internal.TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return 'SanitizeFailure';
}

const messages: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  AccountInUse: 'Account in use',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
};

/** The human text the RPC puts after "Transaction simulation failed: ". */
export function transactionErrorMessage(err: TransactionErrorJson): string {
  if (typeof err === 'string') return messages[err] ?? err;
  if ('InstructionError' in err) {
    const [index, inner] = err.InstructionError as [number, unknown];
    const detail = typeof inner === 'string' ? inner : JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${detail}`;
  }
  return JSON.stringify(err);
}

/** A transaction refused before it ran: an error with preflight, dropped silently without. */
export function rejected(tx: WireTransaction, err: TransactionErrorJson, preflight: boolean): SubmitResult {
  return preflight ? { kind: 'rejected', signature: tx.signature, err, logs: [], unitsConsumed: 0n, preflight } : { kind: 'dropped', signature: tx.signature };
}
