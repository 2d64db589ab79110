/** hmac-sha256.ts, hand-made from two digests, is createHmac's HMAC-SHA256 for every key and message. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { hmacSha256, hmacSha256Text } from '../../src/domain/hmac-sha256.ts';

const reference = (key: Uint8Array, parts: Uint8Array[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

test('equals createHmac: keys shorter and longer than a block, messages in parts, up to past the reused buffer', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.array(fc.uint8Array({ maxLength: 700 }), { maxLength: 4 }), (key, parts) => {
      const want = reference(key, parts);
      assert.deepEqual(hmacSha256(key, ...parts), want);
      assert.equal(hmacSha256Text(key, ...parts), want.toString('latin1'));
    }),
    { numRuns: 300 },
  );
});

test('one key object, another key of the same bytes, and a changed key each give their own right answer', () => {
  const key = new Uint8Array(32).fill(1);
  const message = Buffer.from('hush/deposit-budget');
  const first = hmacSha256(key, message);
  assert.deepEqual(hmacSha256(new Uint8Array(32).fill(1), message), first);
  assert.notDeepEqual(hmacSha256(new Uint8Array(32).fill(2), message), first);
  assert.deepEqual(hmacSha256(key, message), first, 'the same key again: its cached pads');
});
