import { SLOTS_PER_EPOCH } from './local-chain-types.ts';
import { endpointsOf, nodeIdentity, stakeMinimumDelegation, totalSupply } from './node-info.ts';
import { asAddress, asBool, asU64, BLOCK_CLEANED_UP, BLOCK_NOT_AVAILABLE, checkParamCount, commitmentOf, config, invalidParams, param, RpcError, type Config } from './rpc-params.ts';
import { contextSlot, NODE_VERSION, withContext, type Method } from './rpc-method-common.ts';

const MAX_INFLATION_REWARD_ADDRESSES = 100;

/**
 * The node and its cluster: one node that is its own leader for every slot, with no vote accounts and no
 * inflation (the local chain has neither consensus nor staking rewards); answers as a validator's for that
 * cluster would be.
 */
export const nodeMethods: Record<string, Method> = {
  getIdentity(chain, params) {
    checkParamCount(params, 0);
    return { identity: nodeIdentity(chain) };
  },

  getClusterNodes(chain, params) {
    checkParamCount(params, 0);
    const { rpc, pubsub } = endpointsOf(chain);
    return [
      {
        featureSet: NODE_VERSION['feature-set'],
        gossip: null,
        pubkey: nodeIdentity(chain),
        pubsub,
        rpc,
        serveRepair: null,
        shredVersion: 0,
        tpu: null,
        tpuForwards: null,
        tpuForwardsQuic: null,
        tpuQuic: null,
        tpuVote: null,
        tvu: null,
        version: NODE_VERSION['solana-core'],
      },
    ];
  },

  getEpochSchedule(_chain, params) {
    checkParamCount(params, 0);
    return { firstNormalEpoch: 0n, firstNormalSlot: 0n, leaderScheduleSlotOffset: SLOTS_PER_EPOCH, slotsPerEpoch: SLOTS_PER_EPOCH, warmup: false };
  },

  getLeaderSchedule(chain, params) {
    checkParamCount(params, 2);
    // The first parameter is a slot, null, or (without a slot) the configuration.
    const first = params[0];
    const firstIsConfig = first !== null && typeof first === 'object' && !Array.isArray(first);
    const cfg: Config = firstIsConfig ? config(params, 0, ['commitment', 'identity']) : config(params, 1, ['commitment', 'identity']);
    const tip = chain.commitmentSlot(commitmentOf(cfg));
    const slot = firstIsConfig || first === undefined || first === null ? tip : asU64(first, 'slot');
    const identity = nodeIdentity(chain);
    if (cfg.identity !== undefined) asAddress(cfg.identity, 'identity');
    const epoch = slot / SLOTS_PER_EPOCH;
    const current = tip / SLOTS_PER_EPOCH;
    // A validator knows the schedule of the current and the next epoch only.
    if (epoch < current || epoch > current + 1n) return null;
    if (cfg.identity !== undefined && cfg.identity !== identity) return {};
    return { [identity]: Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_v, i) => i) };
  },

  getVoteAccounts(_chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'votePubkey', 'keepUnstakedDelinquents', 'delinquentSlotDistance']);
    commitmentOf(cfg);
    if (cfg.votePubkey !== undefined) asAddress(cfg.votePubkey, 'votePubkey');
    if (cfg.keepUnstakedDelinquents !== undefined) asBool(cfg.keepUnstakedDelinquents, 'keepUnstakedDelinquents');
    return { current: [], delinquent: [] };
  },

  getInflationReward(chain, params) {
    checkParamCount(params, 2);
    const list = param(params, 0, 'addresses');
    if (!Array.isArray(list)) throw invalidParams('invalid type: expected an array of addresses');
    if (list.length > MAX_INFLATION_REWARD_ADDRESSES) throw invalidParams(`Too many inputs provided; max ${MAX_INFLATION_REWARD_ADDRESSES}`);
    const addresses = list.map((a) => asAddress(a));
    const cfg = config(params, 1, ['epoch', 'commitment', 'minContextSlot']);
    const tip = contextSlot(chain, cfg, commitmentOf(cfg));
    const current = tip / SLOTS_PER_EPOCH;
    const epoch = cfg.epoch === undefined || cfg.epoch === null ? (current > 0n ? current - 1n : 0n) : asU64(cfg.epoch, 'epoch');
    // An epoch's rewards are paid in the first block of the next one: that block must exist.
    const boundary = (epoch + 1n) * SLOTS_PER_EPOCH;
    const firstSlot = BigInt(chain.blocks.firstSlot);
    if (boundary < firstSlot) throw new RpcError(BLOCK_CLEANED_UP, `Block ${boundary} cleaned up, does not exist on node. First available block: ${chain.blocks.firstBlock}`);
    if (chain.blocks.blocksBetween(Number(boundary), Number(tip), 1).length === 0) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${boundary}`);
    // No inflation on this chain: nothing was paid to anyone.
    return addresses.map(() => null);
  },

  getStakeMinimumDelegation(chain, params) {
    checkParamCount(params, 1);
    // web3.js sends an `encoding` here too; the validator's config ignores it.
    const cfg = config(params, 0, ['commitment', 'minContextSlot', 'encoding']);
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    return withContext(slot, stakeMinimumDelegation(chain));
  },

  getSupply(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'excludeNonCirculatingAccountsList']);
    if (cfg.excludeNonCirculatingAccountsList !== undefined) asBool(cfg.excludeNonCirculatingAccountsList, 'excludeNonCirculatingAccountsList');
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    const total = totalSupply(chain);
    return withContext(slot, { circulating: total, nonCirculating: 0n, nonCirculatingAccounts: [], total });
  },
};
