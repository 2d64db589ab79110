import { getAddressEncoder, getBase58Decoder, type Address } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';

const COMPUTE_BUDGET = getAddressEncoder().encode(COMPUTE_BUDGET_PROGRAM_ADDRESS as Address);
const SET_COMPUTE_UNIT_PRICE = 3;

/** A compact-u16 ("shortvec") at `at`: its value and the offset after it. */
function shortVec(b: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0, i = at; i < at + 3; i++, shift += 7) {
    const byte = b[i];
    if (byte === undefined) throw new RangeError('truncated transaction');
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  throw new RangeError('bad compact-u16');
}

function sameKey(b: Uint8Array, at: number, key: ArrayLike<number>): boolean {
  for (let i = 0; i < 32; i++) if (b[at + i] !== key[i]) return false;
  return true;
}

/**
 * The compute-unit price (micro-lamports per CU) a signed transaction offers, read from its own bytes (its
 * Compute Budget SetComputeUnitPrice; 0 without one), so every recorded transaction says what it paid without
 * a column for it: what a re-sign after expiry escalates from and what Hush's own landings teach the fee
 * estimate (src/settlement/fee-prices.ts). Null for bytes that are no transaction.
 */
export function computeUnitPriceOfWire(wireBase64: string): bigint | null {
  try {
    const b = Buffer.from(wireBase64, 'base64');
    let [n, at] = shortVec(b, 0);
    at += 64 * n;
    if ((b[at]! & 0x80) !== 0) at += 1; // versioned message prefix
    at += 3; // header
    [n, at] = shortVec(b, at);
    const keysAt = at;
    const keys = n;
    at += 32 * n + 32; // keys, recent blockhash
    [n, at] = shortVec(b, at);
    for (let i = 0; i < n; i++) {
      const program = b[at++]!;
      let len: number;
      [len, at] = shortVec(b, at);
      at += len;
      [len, at] = shortVec(b, at);
      if (program < keys && sameKey(b, keysAt + 32 * program, COMPUTE_BUDGET) && b[at] === SET_COMPUTE_UNIT_PRICE && len >= 9) return b.readBigUInt64LE(at + 1);
      at += len;
      if (at > b.length) return null;
    }
    return 0n;
  } catch {
    return null;
  }
}

/** A signed transaction's first signature (its id), base58, read from its bytes. */
export function signatureOfWire(wireBase64: string): string {
  const b = Buffer.from(wireBase64, 'base64');
  const [, at] = shortVec(b, 0);
  return getBase58Decoder().decode(b.subarray(at, at + 64));
}
