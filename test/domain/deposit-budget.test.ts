import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import fc from 'fast-check';
import { depositComputeBudget, drawsFromSeed } from '../../src/domain/deposit-budget.ts';

/** Measured on the runtime (test/chain/deposit-budget-on-chain.test.ts checks it): SOL's base, and each bump seed tried. */
const MEASURED = (extraTries: number) => 14_051 + 1_500 * extraTries;
/** The SDK refuses a deposit above this limit (packages/sdk DEFAULT_MAX_COMPUTE_UNIT_LIMIT). */
const SDK_CAP = 200_000;

it('a deposit budget covers what a deposit consumes at any bump seed, varies from order to order, and is one per order', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 40 }), (native, seed, tries) => {
      const b = depositComputeBudget(native, 1000n, drawsFromSeed(seed), tries);
      assert.ok(b.computeUnitLimit >= MEASURED(tries) * 1.1, `room above the measured need: ${b.computeUnitLimit} at ${tries} extra tries`);
      assert.ok(b.computeUnitLimit <= SDK_CAP, 'within what the SDK signs');
      if (tries === 0) assert.ok(b.computeUnitLimit >= 22_000 && b.computeUnitLimit <= 30_000, String(b.computeUnitLimit));
      assert.ok(b.computeUnitPriceMicroLamports >= 1000n && b.computeUnitPriceMicroLamports <= 1500n, 'at the level or up to half above it');
      assert.deepEqual(depositComputeBudget(native, 1000n, drawsFromSeed(Uint8Array.from(seed)), tries), b, 'the same order, the same budget');
    }),
  );
  const limits = new Set(Array.from({ length: 200 }, () => depositComputeBudget(true, 1000n, drawsFromSeed(randomBytes(32)), 0).computeUnitLimit));
  assert.ok(limits.size > 100, `limits differ from order to order (${limits.size} of 200)`);
  assert.equal(depositComputeBudget(true, 0n, [0.5, 0.5], 0).computeUnitPriceMicroLamports, 0n);
});
