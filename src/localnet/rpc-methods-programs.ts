import { matchesFilters, parseFilters } from './account-filters.ts';
import { accountEncodingOf, encodeAccount } from './account-encoding.ts';
import { asAddress, asBool, checkParamCount, commitmentOf, config, param, RpcError, INVALID_PARAMS } from './rpc-params.ts';
import { contextSlot, withContext, type Method } from './rpc-method-common.ts';
import { isTokenProgram, parseMint, parseTokenAccount, uiTokenAmount } from './token-accounts.ts';
import type { Commitment, LocalChain } from './local-chain.ts';

const LARGEST_TOKEN_ACCOUNTS = 20;

function mintAt(chain: LocalChain, mint: string, commitment: Commitment) {
  const account = chain.getAccount(mint, commitment);
  const parsed = account ? parseMint(account.owner, account.data) : null;
  if (!account || !parsed) throw new RpcError(INVALID_PARAMS, 'Invalid param: not a Token mint');
  return { program: account.owner, decimals: parsed.decimals, supply: parsed.supply };
}

/** Accounts by owning program (with filters), and token supplies. */
export const programMethods: Record<string, Method> = {
  getProgramAccounts(chain, params) {
    checkParamCount(params, 2);
    const program = asAddress(param(params, 0, 'pubkey'), 'program id');
    const cfg = config(params, 1, ['commitment', 'minContextSlot', 'encoding', 'dataSlice', 'filters', 'withContext', 'sortResults']);
    const commitment = commitmentOf(cfg);
    const encoding = accountEncodingOf(cfg, 'binary');
    const filters = parseFilters(cfg.filters);
    const withCtx = cfg.withContext === undefined ? false : asBool(cfg.withContext, 'withContext');
    const slot = contextSlot(chain, cfg, commitment);
    const value = [];
    // Candidates from the current state, each read at the requested commitment.
    for (const { address } of chain.programAccounts(program)) {
      const account = chain.getAccount(address, commitment);
      if (!account || account.owner !== program || !matchesFilters(account, filters)) continue;
      value.push({ account: encodeAccount(chain, account, encoding, cfg), pubkey: address });
    }
    return withCtx ? withContext(slot, value) : value;
  },

  getTokenSupply(chain, params) {
    checkParamCount(params, 2);
    const mint = asAddress(param(params, 0, 'pubkey'), 'mint');
    const cfg = config(params, 1, ['commitment']);
    const commitment = commitmentOf(cfg);
    const m = mintAt(chain, mint, commitment);
    return withContext(chain.commitmentSlot(commitment), uiTokenAmount(m.supply, m.decimals));
  },

  getTokenLargestAccounts(chain, params) {
    checkParamCount(params, 2);
    const mint = asAddress(param(params, 0, 'pubkey'), 'mint');
    const cfg = config(params, 1, ['commitment']);
    const commitment = commitmentOf(cfg);
    const m = mintAt(chain, mint, commitment);
    if (!isTokenProgram(m.program)) throw new RpcError(INVALID_PARAMS, 'Invalid param: not a Token mint');
    const holders: { address: string; amount: bigint }[] = [];
    for (const { address } of chain.programAccounts(m.program)) {
      const account = chain.getAccount(address, commitment);
      const t = account ? parseTokenAccount(account.owner, account.data) : null;
      if (t && t.mint === mint) holders.push({ address, amount: t.amount });
    }
    holders.sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
    return withContext(
      chain.commitmentSlot(commitment),
      holders.slice(0, LARGEST_TOKEN_ACCOUNTS).map((h) => ({ address: h.address, ...uiTokenAmount(h.amount, m.decimals) })),
    );
  },
};
