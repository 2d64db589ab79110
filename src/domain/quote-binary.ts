/**
 * The byte-level reader and writer of the quoteId layout (see quote-token.ts). Hand-written because the
 * layout is a dozen fields of fixed size and LEB128 varints, and a general codec costs more per quote
 * than the whole encoding.
 */
import { U64_MAX } from './money.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * One scratch buffer for every quote: issuing is synchronous, and the quoteId's text is made from it
 * before the next quote starts. The largest layout with its tag is 356 bytes.
 */
const SCRATCH = Buffer.alloc(512);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer, SCRATCH.byteOffset, SCRATCH.byteLength);

export class Writer {
  private readonly bytes = SCRATCH;
  private readonly view = SCRATCH_VIEW;
  private at = 0;
  u8(v: number): void {
    this.view.setUint8(this.at++, v);
  }
  u48(v: number): void {
    this.view.setUint16(this.at, Math.floor(v / 2 ** 32));
    this.view.setUint32(this.at + 2, v >>> 0);
    this.at += 6;
  }
  raw(b: Uint8Array): void {
    this.bytes.set(b, this.at);
    this.at += b.length;
  }
  ascii(s: string): void {
    this.u8(s.length);
    for (let i = 0; i < s.length; i++) this.u8(s.charCodeAt(i));
  }
  varint(v: bigint): void {
    if (v <= MAX_SAFE) {
      // Amounts almost always fit a double exactly; Number steps allocate no BigInts.
      let n = Number(v);
      while (n >= 0x80) {
        this.bytes[this.at++] = (n % 0x80) | 0x80;
        n = Math.floor(n / 0x80);
      }
      this.bytes[this.at++] = n;
      return;
    }
    while (v >= 0x80n) {
      this.u8(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.u8(Number(v));
  }
  /** The scratch the bytes are in (valid until the next Writer's first write), with room after them for the tag. */
  get buffer(): Buffer {
    return this.bytes;
  }
  get length(): number {
    return this.at;
  }
}

export class Reader {
  private readonly view: DataView;
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(): number {
    return this.view.getUint8(this.at++); // RangeError past the end
  }
  u48(): number {
    const v = this.view.getUint16(this.at) * 2 ** 32 + this.view.getUint32(this.at + 2);
    this.at += 6;
    return v;
  }
  raw(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new RangeError('truncated');
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  ascii(): string {
    return String.fromCharCode(...this.raw(this.u8()));
  }
  /** What `leading` had read of a varint it did not finish. */
  private carry = 0;

  /**
   * Up to `bytes` bytes of a varint in a double, exact below 2^53: its value when it ends within them (canonically),
   * else -1 with what was read in `carry`. Amounts almost always fit, and then no BigInt is made per byte.
   */
  private leading(bytes: number): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < bytes; i++) {
      const b = this.u8();
      n += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (b === 0 && i > 0) throw new RangeError('overlong varint');
        return n;
      }
      scale *= 0x80;
    }
    this.carry = n;
    return -1;
  }

  /** Canonical LEB128 only (no overlong forms), at most u64. */
  varint(): bigint {
    const n = this.leading(7);
    if (n >= 0) return BigInt(n);
    let v = BigInt(this.carry);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      const b = this.u8();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (b === 0) throw new RangeError('overlong varint');
        if (v > U64_MAX) throw new RangeError('varint over u64');
        return v;
      }
    }
    throw new RangeError('varint too long');
  }

  /** A canonical varint of at most Number.MAX_SAFE_INTEGER, read without BigInts. */
  smallInt(): number {
    // Eight bytes hold 56 bits: a canonical encoding any longer is above 2^53 already. Above 2^53 the double
    // rounds, but never down to MAX_SAFE_INTEGER or below.
    const n = this.leading(8);
    if (n < 0 || n > Number.MAX_SAFE_INTEGER) throw new RangeError('integer too large');
    return n;
  }
  end(): void {
    if (this.at !== this.bytes.length) throw new RangeError('trailing bytes');
  }
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}
