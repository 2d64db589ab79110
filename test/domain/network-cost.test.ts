/** The flat network fee (docs/spec.md §4, §9): one figure per pair whatever the recipient, covering the mean real cost. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_NETWORK_COST, settlementLamports } from '../../src/domain/network-cost.ts';

const p = DEFAULT_NETWORK_COST;
const cost = (tokenAccountRentBps: number, destinationNative = false) => settlementLamports(p, { destinationNative, tokenAccountRentBps, payoutCount: 1 });

it('charges the given share of the token-account rent, rounded up; none for SOL payouts', () => {
  const bare = cost(0);
  assert.equal(cost(10_000) - bare, p.tokenAccountRent);
  assert.equal(cost(7000) - bare, (p.tokenAccountRent * 7000n + 9999n) / 10_000n);
  assert.equal(cost(7000, true), cost(0, true));
});

it('the flat fee at the expected share covers the mean real cost of any mix with no more new accounts than expected', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 10_000 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), (shareBps, mix) => {
      const flat = cost(shareBps);
      const created = mix.filter(Boolean).length;
      // Real costs: the whole rent for a recipient without an account, none for one with.
      const total = mix.reduce((s, missing) => s + cost(missing ? 10_000 : 0), 0n);
      if (created * 10_000 <= shareBps * mix.length) assert.ok(flat * BigInt(mix.length) >= total, 'recovered in full');
      else assert.ok(flat * BigInt(mix.length) < total, 'more new accounts than expected: under-recovered (the ledger shows it)');
    }),
    { numRuns: 500 },
  );
});

it("an order's cost is its sweep share and its payout parts, each priced by its signatures and the priority fee rounded up to a lamport", () => {
  const p = { ...DEFAULT_NETWORK_COST, lamportsPerSignature: 5000n, computeUnitLimit: 100_001, computeUnitPriceMicroLamports: 1000n };
  const sol = { destinationNative: true, tokenAccountRentBps: 0, payoutCount: 1 };
  // Priority fee: 100,001 CU at 1,000 µlamports is 100.001 lamports, charged 101. A transaction's base: 5,000 + 101.
  // A lone sweep: the deposit owner's signature (5,000) and the whole base (5,101); one payout: the base and the pool's signature.
  assert.equal(settlementLamports({ ...p, sweepBatch: 1 }, sol), 5000n + 5101n + (5101n + 5000n));
  // Four deposits to a sweep share its base, rounded up (5,101 / 4 → 1,276); three payout parts pay three transactions.
  assert.equal(settlementLamports({ ...p, sweepBatch: 4 }, { ...sol, payoutCount: 3 }), 5000n + 1276n + 3n * (5101n + 5000n));
  // A batch or a payout count below one is one (a sweep and a payout always happen).
  assert.equal(settlementLamports({ ...p, sweepBatch: 0 }, { ...sol, payoutCount: 0 }), settlementLamports({ ...p, sweepBatch: 1 }, sol));
  // Signatures and priority are separate prices: a dearer signature moves each of the four signatures, a dearer unit each base.
  assert.equal(settlementLamports({ ...p, lamportsPerSignature: 6000n, sweepBatch: 1 }, sol) - settlementLamports({ ...p, sweepBatch: 1 }, sol), 4000n);
  assert.equal(settlementLamports({ ...p, computeUnitPriceMicroLamports: 2000n, sweepBatch: 1 }, sol) - settlementLamports({ ...p, sweepBatch: 1 }, sol), 2n * (201n - 101n));
});
