import { FailedTransactionMetadata, type LiteSvm } from 'litesvm/dist/internal.js';
import { getAddressDecoder } from '@solana/kit';
import type { ChainAccounts } from './chain-accounts.ts';
import type { AccountState, SimulationResult } from './local-chain-types.ts';
import { transactionErrorJson, type TransactionErrorJson } from './transaction-errors.ts';
import { innerInstructionsJson, toState } from './transaction-record.ts';
import { decodeWireTransaction } from './wire-transaction.ts';

const addressDecoder = getAddressDecoder();

/** simulateTransaction over the chain's runtime: nothing it does is kept. */
export function simulateOn(
  svm: LiteSvm,
  accounts: ChainAccounts,
  isBlockhashValid: (blockhash: string) => boolean,
  bytes: Uint8Array,
  opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean },
): SimulationResult {
  const tx = decodeWireTransaction(bytes);
  let accountKeys: string[] = [...tx.staticKeys];
  try {
    accountKeys = accounts.resolveKeys(tx).keys;
  } catch {
    // a missing lookup table: the simulation fails on it below
  }
  const empty = (err: TransactionErrorJson): SimulationResult => ({ err, logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], postAccounts: new Map(), accountKeys });
  if (!opts.replaceRecentBlockhash && !isBlockhashValid(tx.recentBlockhash)) return empty('BlockhashNotFound');
  svm.setSigverify(Boolean(opts.sigVerify));
  let result;
  try {
    result = tx.version === 'legacy' ? svm.simulateLegacyTransaction(bytes) : svm.simulateVersionedTransaction(bytes);
  } finally {
    svm.setSigverify(true);
  }
  if (result instanceof FailedTransactionMetadata) {
    const meta = result.meta();
    return { err: transactionErrorJson(result.err()), logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData: null, innerInstructions: [], postAccounts: new Map(), accountKeys };
  }
  const meta = result.meta();
  const postAccounts = new Map<string, AccountState | null>();
  for (const pa of result.postAccounts()) postAccounts.set(addressDecoder.decode(pa.address), toState(pa.account()));
  const rd = meta.returnData();
  return {
    err: null,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    returnData: rd.data().length > 0 ? { programId: addressDecoder.decode(rd.programId()), data: [Buffer.from(rd.data()).toString('base64'), 'base64'] } : null,
    innerInstructions: innerInstructionsJson(meta),
    postAccounts,
    accountKeys,
  };
}
