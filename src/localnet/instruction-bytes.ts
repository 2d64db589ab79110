import { addressToText } from './base58-cache.ts';

/** An instruction's data could not be read as the program's instruction: the caller falls back to raw. */
export class NotParsable extends Error {}

/** Little-endian reads over an instruction's data; any read past its end makes the instruction not parsable. */
export class DataReader {
  private at = 0;
  private readonly view: DataView;
  constructor(private readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  private need(n: number): void {
    if (this.at + n > this.data.length) throw new NotParsable();
  }
  get remaining(): number {
    return this.data.length - this.at;
  }
  u8(): number {
    this.need(1);
    return this.data[this.at++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.at, true);
    this.at += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return v;
  }
  address(): string {
    this.need(32);
    const v = addressToText(this.data.subarray(this.at, this.at + 32));
    this.at += 32;
    return v;
  }
  /** spl-token's COption<Pubkey> in instruction data: a one-byte tag, then the key when present. */
  optionalAddress(): string | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag !== 1) throw new NotParsable();
    return this.address();
  }
  /** bincode's String: a u64 length, then UTF-8 bytes. */
  bincodeString(): string {
    const len = this.u64();
    if (len > BigInt(this.remaining)) throw new NotParsable();
    const n = Number(len);
    const bytes = this.data.subarray(this.at, this.at + n);
    this.at += n;
    return utf8(bytes);
  }
  rest(): Uint8Array {
    const out = this.data.subarray(this.at);
    this.at = this.data.length;
    return out;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new NotParsable();
  }
}

/** The instruction's accounts resolved to keys; `key(i)` throws when the instruction has fewer than i + 1. */
export class InstructionAccounts {
  constructor(
    private readonly indices: readonly number[],
    private readonly keys: readonly string[],
  ) {
    for (const i of indices) if (i >= keys.length) throw new NotParsable();
  }
  get length(): number {
    return this.indices.length;
  }
  /** The validator's check_num_accounts: fewer accounts than the instruction needs is a key mismatch. */
  atLeast(n: number): this {
    if (this.indices.length < n) throw new NotParsable();
    return this;
  }
  key(position: number): string {
    const i = this.indices[position];
    if (i === undefined) throw new NotParsable();
    return this.keys[i]!;
  }
  from(position: number): string[] {
    return this.indices.slice(position).map((i) => this.keys[i]!);
  }
}
