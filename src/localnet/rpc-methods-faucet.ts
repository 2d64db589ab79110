import { airdropLamports, airdropTokens, FaucetError } from './faucet.ts';
import { asAddress, asU64, checkParamCount, commitmentOf, config, invalidParams, param } from './rpc-params.ts';
import type { Method } from './rpc-method-common.ts';

/** Airdrops of SOL and (a localnet extension) of the seeded tokens. */
export const faucetMethods: Record<string, Method> = {
  async requestAirdrop(chain, params) {
    checkParamCount(params, 3);
    const address = asAddress(param(params, 0, 'pubkey'));
    const lamports = asU64(param(params, 1, 'lamports'), 'lamports');
    // RpcRequestAirdropConfig: kit (and web3.js) always send `{ commitment }` here.
    const cfg = config(params, 2, ['commitment', 'recentBlockhash']);
    if (cfg.commitment !== undefined) commitmentOf(cfg);
    if (lamports === 0n) throw invalidParams('lamports must be greater than zero');
    return faucetCall(() => airdropLamports(chain, address, lamports));
  },

  async localnet_requestTokenAirdrop(chain, params) {
    checkParamCount(params, 3);
    const owner = asAddress(param(params, 0, 'ownerAddress'), 'ownerAddress');
    const mint = asAddress(param(params, 1, 'mintAddress'), 'mintAddress');
    const rawAmount = param(params, 2, 'amount');
    const amount = typeof rawAmount === 'string' && /^(0|[1-9][0-9]*)$/.test(rawAmount) ? asU64(BigInt(rawAmount), 'amount') : asU64(rawAmount, 'amount');
    if (amount === 0n) throw invalidParams('amount must be greater than zero');
    return faucetCall(() => airdropTokens(chain, owner, mint, amount));
  },
};

async function faucetCall(f: () => Promise<string>): Promise<string> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof FaucetError) throw invalidParams(e.message);
    throw e;
  }
}
