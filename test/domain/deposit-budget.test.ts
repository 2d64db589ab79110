import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import fc from 'fast-check';
import { depositComputeBudget, drawsFromSeed } from '../../src/domain/deposit-budget.ts';

it('a deposit budget covers what a deposit consumes, varies from order to order, and is one per order', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.uint8Array({ minLength: 32, maxLength: 32 }), (native, seed) => {
      const b = depositComputeBudget(native, 1000n, drawsFromSeed(seed));
      assert.ok(b.computeUnitLimit >= 22_000 && b.computeUnitLimit <= 30_000, String(b.computeUnitLimit));
      assert.ok(b.computeUnitLimit >= 14_051 * 1.5, 'room above the measured need');
      assert.ok(b.computeUnitPriceMicroLamports >= 500n && b.computeUnitPriceMicroLamports <= 1500n);
      assert.deepEqual(depositComputeBudget(native, 1000n, drawsFromSeed(Uint8Array.from(seed))), b, 'the same order, the same budget');
    }),
  );
  const limits = new Set(Array.from({ length: 200 }, () => depositComputeBudget(true, 1000n, drawsFromSeed(randomBytes(32))).computeUnitLimit));
  assert.ok(limits.size > 100, `limits differ from order to order (${limits.size} of 200)`);
  assert.equal(depositComputeBudget(true, 0n, [0.5, 0.5]).computeUnitPriceMicroLamports, 0n);
});
