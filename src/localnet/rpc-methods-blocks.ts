import { FEE_WINDOW_SLOTS } from './block-history.ts';
import type { Commitment, LocalChain } from './local-chain.ts';
import {
  asAddress, asBool, asU64, asUsize, BLOCK_CLEANED_UP, BLOCK_NOT_AVAILABLE, checkParamCount, commitmentOf, config, invalidParams, param, RpcError,
  SLOT_SKIPPED, UNSUPPORTED_TRANSACTION_VERSION, type Config,
} from './rpc-params.ts';
import { contextSlot, type Method } from './rpc-method-common.ts';
import { accountsOnly, encodeMeta, encodeTransaction, TRANSACTION_ENCODINGS, type TransactionEncoding } from './transaction-encoding.ts';

/** The validator's MAX_GET_CONFIRMED_BLOCKS_RANGE. */
const MAX_BLOCKS_RANGE = 500_000;
const MAX_PRIORITIZATION_FEE_ACCOUNTS = 128;
const MAX_PERFORMANCE_SAMPLES = 720;
/** A performance sample covers 150 slots: the validator's 60 s at the default 400 ms slot. */
const SLOTS_PER_SAMPLE = 150;
const DETAILS = ['full', 'accounts', 'signatures', 'none'];

function atLeastConfirmed(cfg: Config): Commitment {
  const commitment = commitmentOf(cfg);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

/** A block of the history at `commitment`, or the validator's error for a slot it cannot serve. */
function blockAt(chain: LocalChain, slot: bigint, commitment: Commitment) {
  if (slot > chain.commitmentSlot(commitment)) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
  const b = chain.blocks.lookup(Number(slot));
  if (b.kind === 'cleaned') throw new RpcError(BLOCK_CLEANED_UP, `Block ${slot} cleaned up, does not exist on node. First available block: ${b.firstAvailable}`);
  if (b.kind === 'skipped') throw new RpcError(SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  return b;
}

/** getBlocks' second parameter is an end slot or the configuration (the validator's RpcBlocksConfigWrapper). */
function endAndConfig(params: unknown[]): { end: bigint | null; cfg: Config } {
  const second = params[1];
  if (second !== null && typeof second === 'object' && !Array.isArray(second)) {
    checkParamCount(params, 2);
    return { end: null, cfg: config(params, 1, ['commitment', 'minContextSlot']) };
  }
  return { end: second === undefined || second === null ? null : asU64(second, 'endSlot'), cfg: config(params, 2, ['commitment', 'minContextSlot']) };
}

/** Blocks (one per slot, with its transactions and time), block lists and what is derived from them. */
export const blockMethods: Record<string, Method> = {
  getBlock(chain, params) {
    checkParamCount(params, 2);
    const slot = asU64(param(params, 0, 'slot'), 'slot');
    const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1, ['encoding', 'transactionDetails', 'rewards', 'commitment', 'maxSupportedTransactionVersion']);
    const commitment = atLeastConfirmed(cfg);
    const encoding = (cfg.encoding ?? 'json') as TransactionEncoding;
    if (!TRANSACTION_ENCODINGS.includes(encoding)) throw invalidParams(`unknown variant \`${String(encoding)}\` for encoding`);
    const details = cfg.transactionDetails ?? 'full';
    if (typeof details !== 'string' || !DETAILS.includes(details)) throw invalidParams(`unknown variant \`${String(details)}\` for transactionDetails`);
    const rewards = cfg.rewards === undefined ? true : asBool(cfg.rewards, 'rewards');
    const maxVersion = cfg.maxSupportedTransactionVersion === undefined || cfg.maxSupportedTransactionVersion === null ? null : asU64(cfg.maxSupportedTransactionVersion, 'maxSupportedTransactionVersion');
    const block = blockAt(chain, slot, commitment);
    const parent = chain.blocks.parentOf(Number(slot));
    const parentSlot = parent === null ? (slot > 0n ? slot - 1n : 0n) : BigInt(parent);
    const out: Record<string, unknown> = {
      blockHeight: slot,
      blockTime: BigInt(block.time),
      blockhash: chain.blockhashAt(slot),
      parentSlot,
      previousBlockhash: slot === 0n ? chain.genesisHash : chain.blockhashAt(parentSlot),
    };
    if (details === 'full' || details === 'accounts') {
      out.transactions = block.signatures.map((sig) => {
        const record = chain.getTransaction(sig, 'processed')!;
        if (record.version === 0 && maxVersion === null) {
          throw new RpcError(
            UNSUPPORTED_TRANSACTION_VERSION,
            'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
          );
        }
        const tx: Record<string, unknown> =
          details === 'accounts' ? accountsOnly(record, rewards) : { meta: encodeMeta(record, encoding, rewards), transaction: encodeTransaction(record, encoding) };
        if (maxVersion !== null) tx.version = record.version;
        return tx;
      });
    }
    if (details === 'signatures') out.signatures = block.signatures;
    if (rewards) out.rewards = [];
    return out;
  },

  getBlockTime(chain, params) {
    checkParamCount(params, 1);
    const slot = asU64(param(params, 0, 'slot'), 'slot');
    return BigInt(blockAt(chain, slot, 'confirmed').time);
  },

  getBlocks(chain, params) {
    checkParamCount(params, 3);
    const start = asU64(param(params, 0, 'startSlot'), 'startSlot');
    const { end, cfg } = endAndConfig(params);
    const commitment = atLeastConfirmed(cfg);
    const tip = contextSlot(chain, cfg, commitment);
    const last = end === null || end > tip ? tip : end;
    if (end !== null && end >= start && end - start > BigInt(MAX_BLOCKS_RANGE)) throw invalidParams(`Slot range too large; max ${MAX_BLOCKS_RANGE}`);
    if (last < start) return [];
    if (last - start > BigInt(MAX_BLOCKS_RANGE)) throw invalidParams(`Slot range too large; max ${MAX_BLOCKS_RANGE}`);
    return chain.blocks.blocksBetween(Number(start), Number(last)).map(BigInt);
  },

  getBlocksWithLimit(chain, params) {
    checkParamCount(params, 3);
    const start = asU64(param(params, 0, 'startSlot'), 'startSlot');
    const limit = asU64(param(params, 1, 'limit'), 'limit');
    if (limit > BigInt(MAX_BLOCKS_RANGE)) throw invalidParams(`Limit too large; max ${MAX_BLOCKS_RANGE}`);
    const cfg = config(params, 2, ['commitment', 'minContextSlot']);
    const tip = contextSlot(chain, cfg, atLeastConfirmed(cfg));
    if (limit === 0n || tip < start) return [];
    return chain.blocks.blocksBetween(Number(start), Number(tip), Number(limit)).map(BigInt);
  },

  getTransactionCount(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'minContextSlot']);
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    return chain.totalTransactions - BigInt(chain.blocks.countAfter(Number(slot)));
  },

  minimumLedgerSlot(chain, params) {
    checkParamCount(params, 0);
    return BigInt(chain.blocks.firstSlot);
  },

  getFirstAvailableBlock(chain, params) {
    checkParamCount(params, 0);
    return BigInt(chain.blocks.firstBlock);
  },

  getRecentPrioritizationFees(chain, params) {
    checkParamCount(params, 2);
    const list = params[0] === undefined || params[0] === null ? [] : params[0];
    if (!Array.isArray(list)) throw invalidParams('invalid type: expected an array of account addresses');
    if (list.length > MAX_PRIORITIZATION_FEE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ACCOUNTS}`);
    const accounts = list.map((a) => asAddress(a));
    // Triton's `{ percentile }` (basis points, u16; above 10,000 refused): that percentile of each slot's prices.
    const cfg = config(params, 1, ['percentile']);
    const percentile = cfg.percentile === undefined || cfg.percentile === null ? null : asUsize(cfg.percentile, 'percentile', 10_000);
    // Closed slots only, as the validator's cache holds frozen blocks: the last FEE_WINDOW_SLOTS of them.
    const tip = Number(chain.commitmentSlot('confirmed'));
    return chain.blocks
      .prioritizationFees(accounts, tip, percentile)
      .slice(-FEE_WINDOW_SLOTS)
      .map((f) => ({ prioritizationFee: f.prioritizationFee, slot: BigInt(f.slot) }));
  },

  getRecentPerformanceSamples(chain, params) {
    checkParamCount(params, 1);
    const limit = params[0] === undefined || params[0] === null ? MAX_PERFORMANCE_SAMPLES : asUsize(params[0], 'limit', MAX_PERFORMANCE_SAMPLES);
    const samplePeriodSecs = Math.max(1, Math.round((SLOTS_PER_SAMPLE * chain.slotMs) / 1000));
    return chain.blocks.samples(Number(chain.commitmentSlot('confirmed')), SLOTS_PER_SAMPLE, limit).map((s) => ({
      numNonVoteTransactions: BigInt(s.numTransactions),
      numSlots: BigInt(s.numSlots),
      numTransactions: BigInt(s.numTransactions),
      samplePeriodSecs,
      slot: BigInt(s.slot),
    }));
  },
};
