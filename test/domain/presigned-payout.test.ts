/** A payout signed while its order waited for its due slot goes as signed only if it would be signed the same way now. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { blocksLeftAt, PRESIGNED_MIN_BLOCKS_LEFT, presignedVerdict } from '../../src/domain/settlement/presigned-payout.ts';

const signed = { blockhash: 'b', fetchedAt: 1_000_000, blocksLeftAtFetch: 150n, slotMs: 400, computeUnitPrice: 1_000n };

test('a presign a floor old goes as signed; one whose price moved or whose blockhash aged is signed again', () => {
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 1_000n), 'use');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 1_200n), 'repriced', 'the market moved: never sent at the old price');
  // 50 slots on, 100 blocks are left: still as long a resend window as a fresh payout keeps.
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 50 * 400, 1_000n), 'use');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 50 * 400 + 1, 1_000n), 'blockhash_aging');
});

test('any presign: used only with its own price and at least the minimum of blocks left, and the estimate never gains blocks', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 120_000 }), fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 1n, max: 5_000n }), fc.integer({ min: 50, max: 1_000 }), (ageMs, left, price, slotMs) => {
      const s = { ...signed, blocksLeftAtFetch: left, slotMs };
      const now = s.fetchedAt + ageMs;
      const v = presignedVerdict(s, now, price);
      if (v === 'use') assert.ok(price === s.computeUnitPrice && blocksLeftAt(s, now) >= PRESIGNED_MIN_BLOCKS_LEFT);
      if (price !== s.computeUnitPrice) assert.equal(v, 'repriced');
      assert.ok(blocksLeftAt(s, now + 1) <= blocksLeftAt(s, now), 'later never has more blocks left');
      assert.ok(blocksLeftAt(s, now) <= left);
    }),
  );
});
