import type { Address } from '@solana/kit';
import { addressToText, base58Encode } from './base58-cache.ts';

/** What the chain needs to know about a wire transaction before it runs it. */
export interface WireTransaction {
  readonly bytes: Uint8Array;
  readonly signature: string;
  readonly signatures: readonly Uint8Array[];
  readonly signatureCount: number;
  readonly version: 0 | 'legacy';
  readonly feePayer: Address;
  readonly staticKeys: readonly Address[];
  readonly writableStatic: readonly boolean[];
  readonly recentBlockhash: string;
  readonly instructions: readonly { programAddressIndex: number; accountIndices: number[]; data: Uint8Array }[];
  readonly lookups: readonly { lookupTableAddress: Address; writableIndexes: number[]; readonlyIndexes: number[] }[];
  readonly header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
}

export class WireDecodeError extends Error {}

/**
 * Parses the wire format by hand: kit's decoder turns every key into base58 through BigInt arithmetic,
 * which dominated the RPC's per-transaction cost; here keys go through a cache instead.
 */
class Reader {
  private at = 0;
  constructor(private readonly b: Uint8Array) {}
  get done() {
    return this.at === this.b.length;
  }
  u8(): number {
    const v = this.b[this.at++];
    if (v === undefined) throw new WireDecodeError('failed to deserialize transaction: io error: unexpected end of file');
    return v;
  }
  shortVec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
    throw new WireDecodeError('failed to deserialize transaction: invalid compact-u16');
  }
  bytes(n: number): Uint8Array {
    if (this.at + n > this.b.length) throw new WireDecodeError('failed to deserialize transaction: io error: unexpected end of file');
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  position() {
    return this.at;
  }
}

export function decodeWireTransaction(bytes: Uint8Array): WireTransaction {
  const r = new Reader(bytes);
  const signatureCount = r.shortVec();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(r.bytes(64));
  const first = r.u8();
  let version: 0 | 'legacy' = 'legacy';
  let numSignerAccounts = first;
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) throw new WireDecodeError(`failed to deserialize transaction: unsupported transaction version ${first & 0x7f}`);
    version = 0;
    numSignerAccounts = r.u8();
  }
  const header = { numSignerAccounts, numReadonlySignerAccounts: r.u8(), numReadonlyNonSignerAccounts: r.u8() };
  const keyCount = r.shortVec();
  const staticKeys: Address[] = [];
  for (let i = 0; i < keyCount; i++) staticKeys.push(addressToText(r.bytes(32)));
  // Blockhashes repeat across a slot's transactions, so the address cache serves them too.
  const recentBlockhash = addressToText(r.bytes(32));
  const ixCount = r.shortVec();
  const instructions = [];
  for (let i = 0; i < ixCount; i++) {
    const programAddressIndex = r.u8();
    const accountIndices = [...r.bytes(r.shortVec())];
    const data = r.bytes(r.shortVec());
    instructions.push({ programAddressIndex, accountIndices, data });
  }
  const lookups = [];
  if (version === 0) {
    const n = r.shortVec();
    for (let i = 0; i < n; i++) {
      const lookupTableAddress = addressToText(r.bytes(32));
      const writableIndexes = [...r.bytes(r.shortVec())];
      const readonlyIndexes = [...r.bytes(r.shortVec())];
      lookups.push({ lookupTableAddress, writableIndexes, readonlyIndexes });
    }
  }
  if (!r.done) throw new WireDecodeError('failed to deserialize transaction: trailing bytes');
  if (
    signatureCount === 0 ||
    signatureCount !== header.numSignerAccounts ||
    keyCount < header.numSignerAccounts ||
    header.numReadonlySignerAccounts >= header.numSignerAccounts ||
    header.numSignerAccounts + header.numReadonlyNonSignerAccounts > keyCount
  ) {
    throw new WireDecodeError('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  }
  const writableSigners = header.numSignerAccounts - header.numReadonlySignerAccounts;
  const writableStatic = staticKeys.map((_, i) => i < writableSigners || (i >= header.numSignerAccounts && i < keyCount - header.numReadonlyNonSignerAccounts));
  return {
    bytes,
    signature: base58Encode(signatures[0]!),
    signatures,
    signatureCount,
    version,
    feePayer: staticKeys[0]!,
    staticKeys,
    writableStatic,
    recentBlockhash,
    instructions,
    lookups,
    header,
  };
}
