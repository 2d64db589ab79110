import { getBase58Decoder } from '@solana/kit';
import type { TransactionRecord } from './local-chain.ts';
import { asAddress, asU64, asUsize, checkParamCount, commitmentOf, config, invalidParams, param, RpcError, UNSUPPORTED_TRANSACTION_VERSION } from './rpc-params.ts';
import { asSignature, contextSlot, withContext, type Method } from './rpc-method-common.ts';
import { decodeWireTransaction } from './wire-transaction.ts';

const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;

const base58Decoder = getBase58Decoder();

function transactionJson(record: TransactionRecord, encoding: string) {
  if (encoding === 'base64') return [Buffer.from(record.bytes).toString('base64'), 'base64'];
  if (encoding === 'base58') return [base58Decoder.decode(record.bytes), 'base58'];
  const tx = decodeWireTransaction(record.bytes);
  const sigCount = tx.signatureCount;
  const signatures: string[] = [];
  for (let i = 0; i < sigCount; i++) signatures.push(base58Decoder.decode(record.bytes.subarray(1 + i * 64, 1 + (i + 1) * 64)));
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
  if (tx.version === 0) {
    message.addressTableLookups = tx.lookups.map((l) => ({ accountKey: l.lookupTableAddress, readonlyIndexes: l.readonlyIndexes, writableIndexes: l.writableIndexes }));
  }
  return { message, signatures };
}

/** Signature statuses and the transaction history. */
export const historyMethods: Record<string, Method> = {
  getSignatureStatuses(chain, params) {
    checkParamCount(params, 2);
    const list = param(params, 0, 'signatures');
    if (!Array.isArray(list)) throw invalidParams('invalid type: expected an array of signatures');
    if (list.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    const sigs = list.map((s) => asSignature(s, chain));
    config(params, 1, ['searchTransactionHistory']);
    return withContext(
      chain.slot,
      sigs.map((s) => {
        const st = chain.signatureStatus(s);
        if (!st) return null;
        return { confirmationStatus: st.confirmationStatus, confirmations: st.confirmations, err: st.err, slot: st.slot, status: st.err === null ? { Ok: null } : { Err: st.err } };
      }),
    );
  },

  getTransaction(chain, params) {
    checkParamCount(params, 2);
    const signature = asSignature(param(params, 0, 'signature'), chain);
    const raw = params[1];
    const cfg = typeof raw === 'string' ? { encoding: raw } : config(params, 1, ['encoding', 'commitment', 'maxSupportedTransactionVersion']);
    const commitment = commitmentOf(cfg);
    if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    const encoding = cfg.encoding ?? 'json';
    if (!['json', 'jsonParsed', 'base64', 'base58', 'binary'].includes(encoding as string)) throw invalidParams(`unknown variant \`${String(encoding)}\` for encoding`);
    const maxVersion = cfg.maxSupportedTransactionVersion === undefined ? null : asU64(cfg.maxSupportedTransactionVersion, 'maxSupportedTransactionVersion');
    const record = chain.getTransaction(signature, commitment);
    if (!record) return null;
    if (record.version === 0 && maxVersion === null) {
      throw new RpcError(
        UNSUPPORTED_TRANSACTION_VERSION,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    const out: Record<string, unknown> = {
      blockTime: BigInt(record.blockTime),
      meta: record.meta,
      slot: record.slot,
      transaction: transactionJson(record, encoding === 'binary' ? 'base58' : (encoding as string)),
    };
    if (maxVersion !== null) out.version = record.version;
    return out;
  },

  getSignaturesForAddress(chain, params) {
    checkParamCount(params, 2);
    const address = asAddress(param(params, 0, 'address'), 'address');
    const cfg = config(params, 1, ['limit', 'before', 'until', 'commitment', 'minContextSlot']);
    const commitment = commitmentOf(cfg);
    if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    contextSlot(chain, cfg, commitment);
    const limit = cfg.limit === undefined ? MAX_SIGNATURES_FOR_ADDRESS : asUsize(cfg.limit, 'limit', MAX_SIGNATURES_FOR_ADDRESS);
    if (limit === 0) throw invalidParams('Invalid limit; max 1000');
    const before = cfg.before === undefined ? undefined : asSignature(cfg.before, chain);
    const until = cfg.until === undefined ? undefined : asSignature(cfg.until, chain);
    return chain.signaturesForAddress(address, { limit, before, until, commitment }).map((r) => {
      const st = chain.signatureStatus(r.signature)!;
      return { blockTime: BigInt(r.blockTime), confirmationStatus: st.confirmationStatus, err: r.err, memo: null, signature: r.signature, slot: r.slot };
    });
  },
};
