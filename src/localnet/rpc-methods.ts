import { accountMethods } from './rpc-methods-accounts.ts';
import { blockMethods } from './rpc-methods-blocks.ts';
import { clusterMethods } from './rpc-methods-cluster.ts';
import { congestionMethods } from './rpc-methods-congestion.ts';
import { faucetMethods } from './rpc-methods-faucet.ts';
import { historyMethods } from './rpc-methods-history.ts';
import { nodeMethods } from './rpc-methods-node.ts';
import { programMethods } from './rpc-methods-programs.ts';
import { transactionMethods } from './rpc-methods-transactions.ts';
import type { Method } from './rpc-method-common.ts';

export { NODE_VERSION } from './rpc-method-common.ts';

/** Every JSON-RPC method the local chain serves, by name; one module per group. */
export const methods: Record<string, Method> = {
  ...clusterMethods,
  ...nodeMethods,
  ...accountMethods,
  ...programMethods,
  ...transactionMethods,
  ...historyMethods,
  ...blockMethods,
  ...faucetMethods,
  ...congestionMethods,
};
