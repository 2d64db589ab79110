import { accountEncodingOf, encodeAccount } from './account-encoding.ts';
import { asAddress, asUsize, checkParamCount, commitmentOf, config, invalidParams, param, RpcError, INVALID_PARAMS } from './rpc-params.ts';
import { contextSlot, withContext, type Method } from './rpc-method-common.ts';
import { isTokenProgram, parseTokenAccount, uiTokenAmount } from './token-accounts.ts';

const MAX_MULTIPLE_ACCOUNTS = 100;

/** Account, balance and token account reads, and rent. */
export const accountMethods: Record<string, Method> = {
  getBalance(chain, params) {
    checkParamCount(params, 2);
    const address = asAddress(param(params, 0, 'pubkey'));
    const cfg = config(params, 1, ['commitment', 'minContextSlot']);
    const commitment = commitmentOf(cfg);
    return withContext(contextSlot(chain, cfg, commitment), chain.getBalance(address, commitment));
  },

  getAccountInfo(chain, params) {
    checkParamCount(params, 2);
    const address = asAddress(param(params, 0, 'pubkey'));
    const cfg = config(params, 1, ['commitment', 'minContextSlot', 'encoding', 'dataSlice']);
    const commitment = commitmentOf(cfg);
    const encoding = accountEncodingOf(cfg, 'binary');
    const slot = contextSlot(chain, cfg, commitment);
    const account = chain.getAccount(address, commitment);
    return withContext(slot, account ? encodeAccount(chain, account, encoding, cfg) : null);
  },

  getMultipleAccounts(chain, params) {
    checkParamCount(params, 2);
    const list = param(params, 0, 'pubkeys');
    if (!Array.isArray(list)) throw invalidParams('invalid type: expected an array of pubkeys');
    if (list.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    const addresses = list.map((a) => asAddress(a));
    const cfg = config(params, 1, ['commitment', 'minContextSlot', 'encoding', 'dataSlice']);
    const commitment = commitmentOf(cfg);
    const encoding = accountEncodingOf(cfg, 'base64');
    const slot = contextSlot(chain, cfg, commitment);
    return withContext(
      slot,
      addresses.map((a) => {
        const acc = chain.getAccount(a, commitment);
        return acc ? encodeAccount(chain, acc, encoding, cfg) : null;
      }),
    );
  },

  getTokenAccountBalance(chain, params) {
    checkParamCount(params, 2);
    const address = asAddress(param(params, 0, 'pubkey'));
    const cfg = config(params, 1, ['commitment', 'minContextSlot']);
    const commitment = commitmentOf(cfg);
    const slot = contextSlot(chain, cfg, commitment);
    const acc = chain.getAccount(address, commitment);
    const t = acc ? parseTokenAccount(acc.owner, acc.data) : null;
    const decimals = t ? chain.decimalsOf(t.mint) : null;
    if (!t || decimals === null) throw new RpcError(INVALID_PARAMS, 'Invalid param: not a Token account');
    return withContext(slot, uiTokenAmount(t.amount, decimals));
  },

  getTokenAccountsByOwner(chain, params) {
    checkParamCount(params, 3);
    const owner = asAddress(param(params, 0, 'pubkey'));
    const filter = param(params, 1, 'filter');
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw invalidParams('invalid type: expected a mint or programId filter');
    const f = filter as Record<string, unknown>;
    const keys = Object.keys(f);
    if (keys.length !== 1 || (keys[0] !== 'mint' && keys[0] !== 'programId')) throw invalidParams('expected exactly one of `mint` or `programId`');
    const cfg = config(params, 2, ['commitment', 'minContextSlot', 'encoding', 'dataSlice']);
    const commitment = commitmentOf(cfg);
    const encoding = accountEncodingOf(cfg, 'binary');
    const slot = contextSlot(chain, cfg, commitment);
    let programs: string[];
    let mint: string | null = null;
    if (f.mint !== undefined) {
      mint = asAddress(f.mint, 'mint');
      const mintAccount = chain.getAccount(mint, commitment);
      if (!mintAccount || !isTokenProgram(mintAccount.owner)) throw new RpcError(INVALID_PARAMS, 'Invalid param: could not find mint');
      programs = [mintAccount.owner];
    } else {
      const program = asAddress(f.programId, 'programId');
      if (!isTokenProgram(program)) throw new RpcError(INVALID_PARAMS, `Invalid param: unrecognized Token program id`);
      programs = [program];
    }
    const value = [];
    for (const program of programs) {
      for (const { address, account } of chain.programAccounts(program)) {
        const t = parseTokenAccount(account.owner, account.data);
        if (!t || t.owner !== owner || (mint !== null && t.mint !== mint)) continue;
        value.push({ account: encodeAccount(chain, account, encoding, cfg), pubkey: address });
      }
    }
    return withContext(slot, value);
  },

  getMinimumBalanceForRentExemption(chain, params) {
    checkParamCount(params, 2);
    const size = asUsize(param(params, 0, 'usize'), 'usize', 10 * 1024 * 1024);
    config(params, 1, ['commitment']);
    return chain.minimumBalanceForRentExemption(BigInt(size));
  },
};
