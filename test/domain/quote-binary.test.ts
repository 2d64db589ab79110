/** The quoteId's varints: the reader accepts exactly the canonical LEB128 forms of u64 (smallInt: of safe integers). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Reader } from '../../src/domain/quote-binary.ts';
import { U64_MAX } from '../../src/domain/money.ts';

/** The rule, written plainly: every byte in BigInt, canonical, at most ten bytes, at most u64. */
function reference(bytes: Uint8Array): bigint | null {
  let v = 0n;
  for (let i = 0; i < bytes.length && i < 10; i++) {
    const b = bytes[i]!;
    v |= BigInt(b & 0x7f) << BigInt(7 * i);
    if ((b & 0x80) === 0) {
      if (b === 0 && i > 0) return null;
      return v > U64_MAX ? null : v;
    }
  }
  return null;
}

const read = <T>(bytes: Uint8Array, f: (r: Reader) => T): T | null => {
  try {
    return f(new Reader(bytes));
  } catch {
    return null;
  }
};

const encode = (v: bigint): number[] => {
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
};

test('varint and smallInt accept what the rule accepts, byte strings and encodings of every size alike', () => {
  const bytes = fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 12 }),
    fc.bigInt({ min: 0n, max: 2n ** 70n }).map((v) => Uint8Array.from(encode(v))),
    // Overlong: a canonical encoding with a zero byte continued onto the end.
    fc.bigInt({ min: 0n, max: U64_MAX }).map((v) => { const e = encode(v); e[e.length - 1]! |= 0x80; return Uint8Array.from([...e, 0]); }),
  );
  fc.assert(
    fc.property(bytes, (b) => {
      const want = reference(b);
      assert.equal(read(b, (r) => r.varint()), want);
      assert.equal(read(b, (r) => r.smallInt()), want !== null && want <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(want) : null);
    }),
    { numRuns: 2000 },
  );
});

test('the edges: 2^49 (the double path ends), MAX_SAFE_INTEGER and one above, u64 max and one above', () => {
  for (const v of [0n, 127n, 128n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 56n, U64_MAX, U64_MAX + 1n]) {
    const b = Uint8Array.from(encode(v));
    assert.equal(read(b, (r) => r.varint()), v <= U64_MAX ? v : null, `varint ${v}`);
    assert.equal(read(b, (r) => r.smallInt()), v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null, `smallInt ${v}`);
  }
});
