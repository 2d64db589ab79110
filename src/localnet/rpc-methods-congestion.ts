import { asAddress, checkParamCount, invalidParams } from './rpc-params.ts';
import type { Method } from './rpc-method-common.ts';

const MAX_ACCOUNTS = 128;

/** What a congested chain knows and a cluster never says (local only, like the token faucet). */
export const congestionMethods: Record<string, Method> = {
  /**
   * Per slot the leader built (the last 150), the price a transaction writing these accounts had to pay to get
   * in by price: what bench:landing measures fees against. A chain that does not congest answers [].
   */
  localnet_getClearingPrices(chain, params) {
    checkParamCount(params, 1);
    const list = params[0] === undefined || params[0] === null ? [] : params[0];
    if (!Array.isArray(list) || list.length > MAX_ACCOUNTS) throw invalidParams(`expected an array of at most ${MAX_ACCOUNTS} account addresses`);
    const accounts = list.map((a) => asAddress(a));
    const leader = chain.leader;
    if (!leader) return [];
    return leader.clearedSlots().map((slot) => ({ slot, clearingPrice: leader.clearingPrice(slot, accounts) ?? 0n }));
  },
};
