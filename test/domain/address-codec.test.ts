/**
 * addressBytes accepts exactly what kit's isAddress accepts, and gives kit's bytes: it replaced kit's
 * check on the order path (a fresh deposit owner and deposit account per order).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { it } from 'node:test';
import bs58 from 'bs58';
import { getAddressEncoder, isAddress, type Address } from '@solana/kit';
import { addressBytes, addressFromBytes } from '../../src/domain/address-codec.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function candidates(): string[] {
  const out = ['', '1', '11111111111111111111111111111111', 'So11111111111111111111111111111111111111112', '0'.repeat(44), 'O'.repeat(32), 'l'.repeat(40)];
  for (let i = 0; i < 300; i++) {
    out.push(bs58.encode(randomBytes(32)));
    // Leading zero bytes encode as leading '1's.
    out.push(bs58.encode(Buffer.concat([Buffer.alloc(randomInt(1, 6)), randomBytes(32)]).subarray(0, 32)));
    out.push(bs58.encode(randomBytes(randomInt(28, 37))));
    let s = '';
    for (let n = randomInt(30, 47); s.length < n; ) s += ALPHABET[randomInt(58)];
    out.push(s);
    const valid = bs58.encode(randomBytes(32));
    out.push(valid.slice(0, 10) + '0' + valid.slice(11));
  }
  return out;
}

it('addressBytes throws exactly where kit says "not an address", and agrees on the bytes', () => {
  const enc = getAddressEncoder();
  let accepted = 0;
  for (const s of candidates()) {
    const want = isAddress(s);
    let got: Uint8Array | null = null;
    try {
      got = addressBytes(s as Address);
    } catch {
      got = null;
    }
    assert.equal(got !== null, want, `${JSON.stringify(s)}: kit says ${want}`);
    if (got) {
      accepted++;
      assert.deepEqual(Buffer.from(got), Buffer.from(enc.encode(s as Address)));
      assert.equal(addressFromBytes(got), s);
    }
  }
  assert.ok(accepted > 600, 'valid addresses are exercised');
});
