import { getBase58Encoder } from '@solana/kit';
import { accountEncodingOf, encodeAccount } from './account-encoding.ts';
import { transactionFee } from './fee-schedule.ts';
import {
  asAddress,
  asBool,
  asString,
  asU64,
  checkParamCount,
  commitmentOf,
  config,
  invalidParams,
  param,
  RpcError,
  SEND_TRANSACTION_PREFLIGHT_FAILURE,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  type Config,
} from './rpc-params.ts';
import { contextSlot, withContext, type Method } from './rpc-method-common.ts';
import { parsedInnerInstructions } from './transaction-encoding.ts';
import { transactionErrorMessage } from './transaction-errors.ts';
import { decodeWireTransaction, WireDecodeError } from './wire-transaction.ts';

const MAX_BASE58_TX = 1683;
const MAX_BASE64_TX = 1644;

const base58Encoder = getBase58Encoder();

function decodeTransactionParam(v: unknown, cfg: Config): Uint8Array {
  const text = asString(v, 'transaction');
  const encoding = cfg.encoding ?? 'base58';
  if (encoding !== 'base58' && encoding !== 'base64') throw invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
  const limit = encoding === 'base58' ? MAX_BASE58_TX : MAX_BASE64_TX;
  if (text.length > limit) throw invalidParams(`encoded solana_transaction::versioned::VersionedTransaction too large: ${text.length} bytes (max: encoded/raw ${limit})`);
  try {
    if (encoding === 'base64') {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('invalid base64');
      return new Uint8Array(Buffer.from(text, 'base64'));
    }
    return new Uint8Array(base58Encoder.encode(text));
  } catch {
    throw invalidParams(`invalid ${encoding} encoding: the transaction is not valid ${encoding}`);
  }
}

function decodeOrThrow<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof WireDecodeError) throw invalidParams(e.message);
    throw e;
  }
}

function simulationFailureData(err: unknown, logs: string[], unitsConsumed: bigint) {
  return { accounts: null, err, innerInstructions: null, logs, replacementBlockhash: null, returnData: null, unitsConsumed };
}

/** Fees, sending and simulating transactions. */
export const transactionMethods: Record<string, Method> = {
  getFeeForMessage(chain, params) {
    checkParamCount(params, 2);
    const text = asString(param(params, 0, 'message'), 'message');
    const cfg = config(params, 1, ['commitment', 'minContextSlot']);
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    const messageBytes = Buffer.from(text, 'base64');
    // A message is a transaction without its signature section: give it empty signatures to reuse the decoder.
    const header = messageBytes[0] !== undefined && messageBytes[0] & 0x80 ? messageBytes[1] : messageBytes[0];
    if (header === undefined || header === 0 || header > 127) throw invalidParams('invalid message');
    const fake = new Uint8Array(1 + header * 64 + messageBytes.length);
    fake[0] = header;
    fake.set(messageBytes, 1 + header * 64);
    const tx = decodeOrThrow(() => decodeWireTransaction(fake));
    return withContext(slot, chain.isBlockhashValid(tx.recentBlockhash) ? transactionFee(tx) : null);
  },

  sendTransaction(chain, params) {
    checkParamCount(params, 2);
    const cfg = config(params, 1, ['encoding', 'skipPreflight', 'preflightCommitment', 'maxRetries', 'minContextSlot']);
    const bytes = decodeTransactionParam(param(params, 0, 'transaction'), cfg);
    const skipPreflight = cfg.skipPreflight === undefined ? false : asBool(cfg.skipPreflight, 'skipPreflight');
    if (cfg.preflightCommitment !== undefined) commitmentOf(cfg, 'preflightCommitment');
    if (cfg.maxRetries !== undefined) asU64(cfg.maxRetries, 'maxRetries');
    contextSlot(chain, cfg, 'processed');
    const result = decodeOrThrow(() => chain.send(bytes, { skipPreflight }));
    if (result.kind === 'rejected') {
      if (result.err === 'SignatureFailure') throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
      throw new RpcError(
        SEND_TRANSACTION_PREFLIGHT_FAILURE,
        `Transaction simulation failed: ${transactionErrorMessage(result.err)}`,
        simulationFailureData(result.err, result.logs, result.unitsConsumed),
      );
    }
    return result.signature;
  },

  simulateTransaction(chain, params) {
    checkParamCount(params, 2);
    const cfg = config(params, 1, ['sigVerify', 'replaceRecentBlockhash', 'commitment', 'encoding', 'accounts', 'minContextSlot', 'innerInstructions']);
    const bytes = decodeTransactionParam(param(params, 0, 'transaction'), cfg);
    const sigVerify = cfg.sigVerify === undefined ? false : asBool(cfg.sigVerify, 'sigVerify');
    const replace = cfg.replaceRecentBlockhash === undefined ? false : asBool(cfg.replaceRecentBlockhash, 'replaceRecentBlockhash');
    if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    const commitment = commitmentOf(cfg);
    const slot = contextSlot(chain, cfg, commitment);
    let wanted: string[] = [];
    let accountEncoding: ReturnType<typeof accountEncodingOf> = 'base64';
    if (cfg.accounts !== undefined && cfg.accounts !== null) {
      const a = cfg.accounts as { addresses?: unknown; encoding?: unknown };
      if (typeof a !== 'object' || !Array.isArray(a.addresses)) throw invalidParams('invalid `accounts` configuration');
      wanted = a.addresses.map((x) => asAddress(x));
      accountEncoding = accountEncodingOf(a as Config, 'base64');
      if (accountEncoding === 'binary' || accountEncoding === 'base58') throw invalidParams('base58 encoding not supported for simulated accounts');
    }
    const sim = decodeOrThrow(() => chain.simulate(bytes, { sigVerify, replaceRecentBlockhash: replace }));
    if (sigVerify && sim.err === 'SignatureFailure') throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
    const accounts =
      wanted.length === 0
        ? null
        : wanted.map((a) => {
            const acc = sim.postAccounts.has(a) ? sim.postAccounts.get(a)! : chain.getAccount(a, 'processed');
            return acc && !(acc.lamports === 0n && acc.data.length === 0) ? encodeAccount(chain, acc, accountEncoding, {}) : null;
          });
    const latest = chain.latestBlockhash(commitment);
    return withContext(slot, {
      accounts,
      err: sim.err,
      // Always in the parsed form, whatever the encoding: the validator's UiInnerInstructions::parse.
      innerInstructions: cfg.innerInstructions === true ? parsedInnerInstructions(sim.innerInstructions, sim.accountKeys) : null,
      logs: sim.logs,
      replacementBlockhash: replace ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : null,
      returnData: sim.returnData,
      unitsConsumed: sim.unitsConsumed,
    });
  },
};
