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
