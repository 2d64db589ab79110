/** A payout signed while its order waited for its due slot goes as signed only if it would be signed so now. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { blocksLeftAt, PRESIGNED_MIN_BLOCKS_LEFT, PRICE_BAND_BPS, presignedVerdict, withinPriceBand } from '../../src/domain/settlement/presigned-payout.ts';

const signed = { blockhash: 'b', fetchedAt: 1_000_000, blocksLeftAtFetch: 150n, slotMs: 400, computeUnitPrice: 1_000n };

test('a presign a floor old goes as signed while the market stays within its band; one below the market or whose blockhash aged is signed again', () => {
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 1_000n), 'use');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 1_001n), 'repriced', 'the market rose: never sent below it');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 800n), 'use', 'the market fell a fifth: a quarter above it still goes');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 800, 799n), 'repriced', 'more than a quarter above the market: signed again, cheaper');
  // 50 slots on, 100 blocks are left: still as long a resend window as a fresh payout keeps.
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 50 * 400, 1_000n), 'use');
  assert.equal(presignedVerdict(signed, signed.fetchedAt + 50 * 400 + 1, 1_000n), 'blockhash_aging');
});

test('any presign: used only within its price band (never below the market, at most a quarter above) and with the minimum of blocks left; the estimate never gains blocks', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 120_000 }), fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 1n, max: 5_000n }), fc.bigInt({ min: 0n, max: 5_000n }), fc.integer({ min: 50, max: 1_000 }), (ageMs, left, price, signedAt, slotMs) => {
      const s = { ...signed, blocksLeftAtFetch: left, slotMs, computeUnitPrice: signedAt };
      const now = s.fetchedAt + ageMs;
      const v = presignedVerdict(s, now, price);
      if (v === 'use') {
        assert.ok(signedAt >= price, 'never below the price a payout gets now');
        assert.ok(signedAt * 10_000n <= price * (10_000n + PRICE_BAND_BPS), 'at most the band above it');
        assert.ok(blocksLeftAt(s, now) >= PRESIGNED_MIN_BLOCKS_LEFT);
      }
      if (!withinPriceBand(signedAt, price)) assert.equal(v, 'repriced');
      assert.ok(blocksLeftAt(s, now + 1) <= blocksLeftAt(s, now), 'later never has more blocks left');
      assert.ok(blocksLeftAt(s, now) <= left);
    }),
  );
});
