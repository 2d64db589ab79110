import { base58Decode } from './base58-cache.ts';
import type { AccountState } from './local-chain-types.ts';
import { invalidParams } from './rpc-params.ts';
import { parseTokenAccount } from './token-accounts.ts';

/** The validator's limits on getProgramAccounts and programSubscribe filters. */
const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;
const MAX_MEMCMP_BASE58 = 175;

export type AccountFilter = { kind: 'dataSize'; size: number } | { kind: 'memcmp'; offset: number; bytes: Uint8Array } | { kind: 'tokenAccountState' };

function memcmpBytes(m: Record<string, unknown>): Uint8Array {
  const text = m.bytes;
  const encoding = m.encoding ?? 'base58';
  if (typeof text !== 'string') throw invalidParams('memcmp: `bytes` must be a string');
  let bytes: Uint8Array;
  if (encoding === 'base58') {
    if (text.length > MAX_MEMCMP_BASE58) throw invalidParams('memcmp: base58 encoded bytes too large');
    try {
      bytes = base58Decode(text);
    } catch {
      throw invalidParams('memcmp: invalid base58 in `bytes`');
    }
  } else if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw invalidParams('memcmp: invalid base64 in `bytes`');
    bytes = new Uint8Array(Buffer.from(text, 'base64'));
  } else throw invalidParams(`unknown variant \`${String(encoding)}\` for memcmp encoding`);
  if (bytes.length > MAX_MEMCMP_BYTES) throw invalidParams(`memcmp: encoded binary data should be less than ${MAX_MEMCMP_BYTES + 1} bytes`);
  return bytes;
}

/** The `filters` configuration (dataSize, memcmp with base58 or base64 bytes, tokenAccountState), checked. */
export function parseFilters(v: unknown): AccountFilter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidParams('invalid type: `filters` must be an array');
  if (v.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return v.map((f): AccountFilter => {
    if (f === 'tokenAccountState') return { kind: 'tokenAccountState' };
    if (typeof f !== 'object' || f === null || Array.isArray(f) || Object.keys(f).length !== 1) throw invalidParams('invalid filter: expected one of `dataSize`, `memcmp`, `tokenAccountState`');
    const o = f as Record<string, unknown>;
    if ('dataSize' in o) {
      const size = o.dataSize;
      if ((typeof size !== 'number' && typeof size !== 'bigint') || size < 0 || !Number.isSafeInteger(Number(size))) throw invalidParams('dataSize: expected a u64');
      return { kind: 'dataSize', size: Number(size) };
    }
    if ('memcmp' in o && typeof o.memcmp === 'object' && o.memcmp !== null) {
      const m = o.memcmp as Record<string, unknown>;
      const offset = Number(m.offset);
      if ((typeof m.offset !== 'number' && typeof m.offset !== 'bigint') || !Number.isSafeInteger(offset) || offset < 0) throw invalidParams('memcmp: `offset` must be a usize');
      return { kind: 'memcmp', offset, bytes: memcmpBytes(m) };
    }
    throw invalidParams('invalid filter: expected one of `dataSize`, `memcmp`, `tokenAccountState`');
  });
}

export function matchesFilters(account: AccountState, filters: readonly AccountFilter[]): boolean {
  for (const f of filters) {
    if (f.kind === 'dataSize' && account.data.length !== f.size) return false;
    if (f.kind === 'tokenAccountState' && parseTokenAccount(account.owner, account.data) === null) return false;
    if (f.kind === 'memcmp') {
      const d = account.data;
      if (f.offset + f.bytes.length > d.length) return false;
      for (let i = 0; i < f.bytes.length; i++) if (d[f.offset + i] !== f.bytes[i]) return false;
    }
  }
  return true;
}
