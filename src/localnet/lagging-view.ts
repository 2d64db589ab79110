import type { Commitment, LocalChain, SubmitResult } from './local-chain.ts';
import { rejected } from './transaction-errors.ts';
import { decodeWireTransaction } from './wire-transaction.ts';

/**
 * How far behind a lagging node may be: reads at its `finalized` must stay within the commitment journal's
 * reach (FINALIZATION_LAG + 8 slots back), or they would show current state for an old slot.
 */
export const MAX_LAG_SLOTS = 8;

/**
 * The same chain as an RPC node `lag` slots behind the cluster sees it, for scale-out tests: its slots,
 * block height and blockhashes are `lag` behind, so a blockhash fresh from an up-to-date node is unknown to
 * it (preflight answers BlockhashNotFound); signatures, transactions, blocks, fees and accounts are those
 * of its tip. What it is sent goes on to the leader (with skipPreflight the check above is skipped, as an
 * agave node forwards such a transaction unchecked), so the chain itself never lags.
 *
 * A view, not a copy: every LocalChain method runs on it with `this` the view, so what a method derives from
 * `slot` and `commitmentSlot` follows the lag; the few that read the newest state directly are replaced here.
 * Not lagged: simulation runs on the newest state, and getProgramAccounts (current state only, as on the
 * chain itself) and PubSub (served by the chain's own socket only).
 */
export function laggingView(chain: LocalChain, lag: number): LocalChain {
  if (!Number.isInteger(lag) || lag < 1 || lag > MAX_LAG_SLOTS) throw new Error(`a lagging view lags 1 to ${MAX_LAG_SLOTS} slots, not ${lag}`);
  const behind = BigInt(lag);
  const tip = () => (chain.slot > behind ? chain.slot - behind : 0n);
  const overrides: Partial<Record<keyof LocalChain, unknown>> = {
    commitmentSlot: (commitment: Commitment = 'finalized') => {
      const s = chain.commitmentSlot(commitment);
      return s > behind ? s - behind : 0n;
    },
    blockhashSlot: (blockhash: string) => {
      const s = chain.blockhashSlot(blockhash);
      return s !== null && s <= tip() ? s : null;
    },
    getAccount: (address: string, commitment: Commitment = 'finalized') => chain.accountAt(address, view.commitmentSlot(commitment)),
    send: (bytes: Uint8Array, opts: { skipPreflight?: boolean } = {}): SubmitResult => {
      const tx = decodeWireTransaction(bytes);
      if (!opts.skipPreflight && !view.isBlockhashValid(tx.recentBlockhash)) return rejected(tx, 'BlockhashNotFound', true);
      return chain.send(bytes, opts);
    },
  };
  const view: LocalChain = new Proxy(chain, {
    get(target, prop, receiver) {
      if (prop === 'slot') return tip();
      if (typeof prop === 'string' && Object.hasOwn(overrides, prop)) return overrides[prop as keyof LocalChain];
      return Reflect.get(target, prop, receiver);
    },
  });
  return view;
}
