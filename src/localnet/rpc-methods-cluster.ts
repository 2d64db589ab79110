import { checkParamCount, commitmentOf, config, asString, param } from './rpc-params.ts';
import { contextSlot, NODE_VERSION, withContext, type Method } from './rpc-method-common.ts';

/** Health, version, slots and blockhashes. */
export const clusterMethods: Record<string, Method> = {
  getHealth: () => 'ok',
  getVersion: () => NODE_VERSION,
  getGenesisHash: (chain) => chain.genesisHash,

  getSlot(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'minContextSlot']);
    return contextSlot(chain, cfg, commitmentOf(cfg));
  },

  getBlockHeight(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'minContextSlot']);
    return contextSlot(chain, cfg, commitmentOf(cfg));
  },

  getEpochInfo(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'minContextSlot']);
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    const slotsInEpoch = 432_000n;
    return { absoluteSlot: slot, blockHeight: slot, epoch: slot / slotsInEpoch, slotIndex: slot % slotsInEpoch, slotsInEpoch, transactionCount: chain.totalTransactions };
  },

  getLatestBlockhash(chain, params) {
    checkParamCount(params, 1);
    const cfg = config(params, 0, ['commitment', 'minContextSlot']);
    const commitment = commitmentOf(cfg);
    const slot = contextSlot(chain, cfg, commitment);
    const { blockhash, lastValidBlockHeight } = chain.latestBlockhash(commitment);
    return withContext(slot, { blockhash, lastValidBlockHeight });
  },

  isBlockhashValid(chain, params) {
    checkParamCount(params, 2);
    const blockhash = asString(param(params, 0, 'blockhash'), 'blockhash');
    const cfg = config(params, 1, ['commitment', 'minContextSlot']);
    const slot = contextSlot(chain, cfg, commitmentOf(cfg));
    return withContext(slot, chain.isBlockhashValid(blockhash));
  },
};
