import { asAddress, asU64, asUsize, checkParamCount, commitmentOf, config, invalidParams, param, RpcError, UNSUPPORTED_TRANSACTION_VERSION } from './rpc-params.ts';
import { asSignature, contextSlot, withContext, type Method } from './rpc-method-common.ts';
import { encodeMeta, encodeTransaction, TRANSACTION_ENCODINGS, type TransactionEncoding } from './transaction-encoding.ts';

const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;

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
    const encoding = (cfg.encoding ?? 'json') as TransactionEncoding;
    if (!TRANSACTION_ENCODINGS.includes(encoding)) throw invalidParams(`unknown variant \`${String(encoding)}\` for encoding`);
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
      meta: encodeMeta(record, encoding),
      slot: record.slot,
      transaction: encodeTransaction(record, encoding),
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
