/**
 * Issue 54: Hush counts a release's bursts by the rule the bench's adversary applies on the chain
 * (bench/privacy/score.ts chainBurstSizes, docs/privacy.md), with the same span.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { chainBurstSizes } from '../../bench/privacy/score.ts';
import type { TruthRecord } from '../../bench/privacy/driver.ts';
import { burstSpanSlots, landedBurstSizes } from '../../src/domain/landed-bursts.ts';

test("the span is the bench's: the spread in slots plus 5c + 5 slots of latency (c = 400 ms / slot)", () => {
  // bench/privacy/run.ts: ceil((windowS.max - windowS.min) / 0.4) + 5c + 5, the window given unscaled.
  for (const [spreadS, c] of [[30, 1], [30, 16], [0.4, 8], [120, 4]] as const) {
    const slotMs = 400 / c;
    assert.equal(burstSpanSlots((spreadS * 1000) / c, slotMs), Math.ceil(spreadS / 0.4) + 5 * c + 5, `spread ${spreadS} s at ×${c}`);
  }
});

test("a release's burst sizes equal what the bench counts on the chain for the same landing slots", () => {
  fc.assert(
    fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 60 }), (slots, span) => {
      const members = slots.map((s, i) => ({ id: `trk_${i}`, slot: s === null ? null : BigInt(s) }));
      const records = members.map((m) => ({ trackingId: m.id, recipient: m.id, status: 'completed', quoted: { standard: true }, plan: { sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', amount: '1000000' } }) as unknown as TruthRecord);
      const payoutSlot = new Map(members.flatMap((m) => (m.slot === null ? [] : [[`${m.id}:usdc`, Number(m.slot)] as const])));
      assert.deepEqual(landedBurstSizes(members, span), chainBurstSizes(records, payoutSlot, span));
    }),
  );
  const sizes = landedBurstSizes([{ id: 'a', slot: 100n }, { id: 'b', slot: 120n }, { id: 'c', slot: 200n }, { id: 'd', slot: null }], 53);
  assert.deepEqual([...sizes].sort(), [['a', 2], ['b', 2], ['c', 1]], 'a payout landed past the span is a burst of its own; one not landed counts in none');
});
