import { getBase58Decoder } from '@solana/kit';
import type { AccountState, LocalChain } from './local-chain.ts';
import { invalidParams, type Config } from './rpc-params.ts';
import { jsonParsedMint, jsonParsedTokenAccount, parseMint, parseTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token-accounts.ts';

const base58 = getBase58Decoder();
const BASE58_LIMIT = 128;

export type AccountEncoding = 'base58' | 'base64' | 'jsonParsed' | 'binary';

export function accountEncodingOf(cfg: Config, fallback: AccountEncoding): AccountEncoding {
  const e = cfg.encoding ?? fallback;
  if (e === 'base64+zstd') throw invalidParams('encoding base64+zstd is not supported by this node; use base64');
  if (e !== 'base58' && e !== 'base64' && e !== 'jsonParsed' && e !== 'binary') throw invalidParams(`unknown variant \`${String(e)}\` for encoding`);
  return e;
}

function slice(data: Uint8Array, cfg: Config): Uint8Array {
  const ds = cfg.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (!ds) return data;
  if (typeof ds !== 'object') throw invalidParams('invalid dataSlice');
  const offset = Number(ds.offset ?? 0);
  const length = Number(ds.length ?? 0);
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) throw invalidParams('invalid dataSlice');
  return data.subarray(offset, offset + length);
}

function programName(owner: string): string {
  return owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
}

/** Encodes account data the way the RPC's UiAccount does, including jsonParsed for token accounts and mints. */
export function encodeAccount(chain: LocalChain, account: AccountState, encoding: AccountEncoding, cfg: Config) {
  let data: unknown;
  if (encoding === 'jsonParsed' && (account.owner === TOKEN_PROGRAM || account.owner === TOKEN_2022_PROGRAM)) {
    const t = parseTokenAccount(account.owner, account.data);
    const decimals = t ? chain.decimalsOf(t.mint) : null;
    if (t && decimals !== null) data = jsonParsedTokenAccount(t, decimals, programName(account.owner));
    const m = t ? null : parseMint(account.owner, account.data);
    if (m) data = jsonParsedMint(m, programName(account.owner), account.data.length);
  }
  if (data === undefined) {
    const bytes = encoding === 'jsonParsed' ? account.data : slice(account.data, cfg);
    if (encoding === 'base58' || encoding === 'binary') {
      if (bytes.length > BASE58_LIMIT) throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
      data = encoding === 'binary' ? base58.decode(bytes) : [base58.decode(bytes), 'base58'];
    } else {
      data = [Buffer.from(bytes).toString('base64'), 'base64'];
    }
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: account.rentEpoch,
    space: BigInt(account.data.length),
  };
}
