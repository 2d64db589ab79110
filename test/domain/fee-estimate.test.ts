import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  capPrice,
  ECHO_STEP_BPS,
  ESCALATION_BPS,
  estimateComputeUnitPrice,
  LEVEL_RULES,
  marketPrice,
  ownEvidence,
  PURPOSE_LEVEL,
  quantile,
  transactionLamports,
  type FeeLevel,
  type FeeQuestion,
  type MarketFees,
  type OwnLanding,
} from '../../src/domain/fee-estimate.ts';

const TIP = 10_000n;

/** Per-slot fees ending at the tip, oldest first. */
function market(fees: readonly (bigint | number)[], percentileBps: number | null = 300): MarketFees {
  return { slots: fees.map((f, i) => ({ slot: TIP - BigInt(fees.length - 1 - i), fee: BigInt(f) })), percentileBps };
}

function question(over: Partial<FeeQuestion> = {}): FeeQuestion {
  return {
    level: 'fast',
    market: null,
    own: [],
    tipSlot: TIP,
    computeUnits: 100_000,
    baseFeeLamports: 10_000n,
    capLamports: 1_000_000n,
    fallbackPrice: 1_000n,
    ...over,
  };
}

describe('the market price per level', () => {
  test('the level’s quantile of its last slots, in either form; older slots do not count', () => {
    // 10 recent slots at 1,000…10,000 (the fast level's window), 40 older ones far above.
    const fees = [...Array(40).fill(1_000_000), ...Array.from({ length: 10 }, (_, i) => (i + 1) * 1000)];
    assert.equal(marketPrice(market(fees), LEVEL_RULES.fast), 6_000n, 'the sixth of the last ten');
    assert.equal(marketPrice(market(fees, null), LEVEL_RULES.fast), 6_000n);
    assert.equal(marketPrice(market(fees), LEVEL_RULES.medium), 1_000_000n, 'the median of the last 50 reaches the old ones');
  });

  test('a market of zeros is a calm one (0); no slots at all say nothing (null)', () => {
    assert.equal(marketPrice(market(Array(20).fill(0)), LEVEL_RULES.fast), 0n);
    assert.equal(marketPrice(market([]), LEVEL_RULES.fast), null);
  });
});

describe("Hush's own landings", () => {
  const landing = (price: number, waitedSlots: number, slot = TIP - 5n): OwnLanding => ({ slot, price: BigInt(price), waitedSlots });

  test('the prompt ones are what worked; a third or more slow ones lift a floor a quarter above their median', () => {
    assert.deepEqual(ownEvidence([landing(4000, 0), landing(6000, 1), landing(5000, 2)], TIP), { known: 5000n, floor: 0n });
    const slow = [landing(4000, 0), landing(4000, 1), landing(8000, 7), landing(8000, 9), landing(8000, 12)];
    assert.deepEqual(ownEvidence(slow, TIP), { known: 4000n, floor: 10_000n });
    // Two slow among many prompt ones: random drops, not a market above.
    assert.equal(ownEvidence([...Array(10).fill(landing(4000, 0)), landing(8000, 7), landing(8000, 9)], TIP).floor, 0n);
  });

  test('a rebroadcast landing is no evidence of the market’s edge: its wait may be a lost send’s', () => {
    const lost = (price: number) => ({ ...landing(price, 6), resent: true });
    // A third slow, every one of them after a rebroadcast: drops, not a market above.
    const round = [...Array(6).fill(landing(4000, 1)), lost(4000), lost(4000), lost(4000)];
    assert.deepEqual(ownEvidence(round, TIP), { known: 4000n, floor: 0n });
    // The same waits from a first send alone: the market ran above those prices.
    assert.equal(ownEvidence(round.map((o) => ({ ...o, resent: false })), TIP).floor, 5000n);
  });

  test('landings older than 150 slots say nothing', () => {
    assert.deepEqual(ownEvidence([landing(4000, 0, TIP - 150n), landing(9000, 20, TIP - 200n)], TIP), { known: null, floor: 0n });
  });
});

describe('Hush’s own echo in the market’s readings', () => {
  /**
   * Rounds of signing on a chain whose own market holds still: each round's slots read as the endpoint reads an
   * account Hush writes (the highest of the market's p3 and the lowest Hush paid there), a third of the landings
   * waited out a lost send (rebroadcast) and the rest landed at once; the next round signs at the estimate.
   */
  function rounds(start: bigint, marketFees: readonly bigint[], n: number): bigint[] {
    let price = start;
    const prices: bigint[] = [];
    for (let r = 0; r < n; r++) {
      const tip = TIP + BigInt(r * marketFees.length);
      const slots = marketFees.map((fee, i) => ({ slot: tip - BigInt(marketFees.length - 1 - i), fee: fee > price ? fee : price }));
      const own: OwnLanding[] = slots.map((s, i) => ({ slot: s.slot, price, waitedSlots: i % 3 === 0 ? 6 : 1, resent: i % 3 === 0 }));
      price = estimateComputeUnitPrice(question({ tipSlot: tip, market: { slots, percentileBps: 300 }, own })).microLamportsPerCu;
      prices.push(price);
    }
    return prices;
  }
  const steady = [8_000n, 9_000n, 10_000n, 11_000n, 12_000n, 13_000n, 14_000n, 15_000n, 16_000n, 17_000n];

  test('at a steady market the price never climbs round after round, and one paid in a burst sinks back to it', () => {
    // The market's own 60th percentile of these ten slots is 13,000; an echo counts a step (ECHO_STEP_BPS) below it.
    const stepUnder = (13_000n * ECHO_STEP_BPS) / 10_000n;
    const held = rounds(13_000n, steady, 30);
    for (const p of held) assert.ok(p >= stepUnder && p <= 13_000n, `the market's 13,000 or a step below, not above: ${held.join(', ')}`);
    const afterBurst = rounds(60_000n, steady, 80);
    for (let i = 1; i < afterBurst.length && afterBurst[i - 1]! > 13_000n; i++) assert.ok(afterBurst[i]! < afterBurst[i - 1]!, `sinking: ${afterBurst.join(', ')}`);
    assert.ok(afterBurst.slice(-10).every((p) => p >= stepUnder && p <= 13_000n), `back at the market: ${afterBurst.join(', ')}`);
  });

  test('a market above what Hush paid still lifts the price: the readings over its price, or its first sends landing slowly', () => {
    assert.equal(rounds(5_000n, steady, 1)[0], 13_000n, 'slots read above Hush’s price are the market’s own');
    // The endpoint reports nothing above Hush's 5,000 (its per-slot minimum form under-reports), but half of
    // the first sends waited 4 slots: the floor lifts the price a quarter above them.
    const slots = steady.map((_, i) => ({ slot: TIP - BigInt(9 - i), fee: 5_000n }));
    const own = slots.map((s, i): OwnLanding => ({ slot: s.slot, price: 5_000n, waitedSlots: i % 2 === 0 ? 4 : 1 }));
    assert.deepEqual(estimateComputeUnitPrice(question({ market: { slots, percentileBps: null }, own })), { microLamportsPerCu: 6_250n, capped: false, basis: 'own' });
  });
});

describe('the price to sign with', () => {
  test('market first, then what Hush saw land, then the static price; never below the level’s floor', () => {
    assert.deepEqual(estimateComputeUnitPrice(question({ market: market(Array(10).fill(7_000)) })), { microLamportsPerCu: 7_000n, capped: false, basis: 'market' });
    assert.deepEqual(estimateComputeUnitPrice(question({ own: [{ slot: TIP, price: 3_000n, waitedSlots: 0 }] })), { microLamportsPerCu: 3_000n, capped: false, basis: 'own' });
    assert.deepEqual(estimateComputeUnitPrice(question()), { microLamportsPerCu: 1_000n, capped: false, basis: 'fallback' });
    assert.deepEqual(estimateComputeUnitPrice(question({ market: market(Array(10).fill(0)) })), { microLamportsPerCu: LEVEL_RULES.fast.floor, capped: false, basis: 'floor' });
  });

  test('a re-sign offers half again what expired, even when the market says less', () => {
    const answer = estimateComputeUnitPrice(question({ market: market(Array(10).fill(7_000)), previousPrice: 10_000n }));
    assert.deepEqual(answer, { microLamportsPerCu: 15_000n, capped: false, basis: 'escalated' });
  });

  test('the cap binds and says so: (cap − base) × 10⁶ / units', () => {
    const q = question({ market: market(Array(10).fill(1_000_000)), capLamports: 60_000n });
    assert.equal(capPrice(60_000n, 10_000n, 100_000), 500_000n);
    assert.deepEqual(estimateComputeUnitPrice(q), { microLamportsPerCu: 500_000n, capped: true, basis: 'market' });
    assert.equal(transactionLamports(500_000n, 100_000, 10_000n), 60_000n);
    assert.equal(capPrice(9_000n, 10_000n, 100_000), 0n, 'a cap below the base fee leaves no priority fee');
  });

  test('each purpose has its level: payouts and refunds fast, sweeps cheap', () => {
    assert.equal(PURPOSE_LEVEL.payout, 'fast');
    assert.equal(PURPOSE_LEVEL.refund, 'fast');
    assert.equal(PURPOSE_LEVEL.sweep, 'cheap');
    assert.equal(PURPOSE_LEVEL.deposit, 'medium');
  });
});

const feeArb = fc.bigInt({ min: 0n, max: 50_000_000n });
const questionArb = fc.record({
  level: fc.constantFrom<FeeLevel>('cheap', 'medium', 'fast'),
  fees: fc.array(feeArb, { maxLength: 160 }),
  percentile: fc.constantFrom<number | null>(null, 300, 5000),
  asked: fc.boolean(),
  own: fc.array(fc.record({ slot: fc.bigInt({ min: TIP - 300n, max: TIP }), price: feeArb, waitedSlots: fc.nat({ max: 40 }) }), { maxLength: 20 }),
  computeUnits: fc.integer({ min: 1, max: 1_400_000 }),
  baseFeeLamports: fc.constantFrom(5_000n, 10_000n, 15_000n),
  capLamports: fc.bigInt({ min: 0n, max: 100_000_000n }),
  previousPrice: fc.option(feeArb, { nil: undefined }),
  fallbackPrice: fc.bigInt({ min: 0n, max: 100_000n }),
});

type Generated = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function toQuestion(g: Generated): FeeQuestion {
  return question({
    level: g.level,
    market: g.asked ? market(g.fees, g.percentile) : null,
    own: g.own,
    computeUnits: g.computeUnits,
    baseFeeLamports: g.baseFeeLamports,
    capLamports: g.capLamports,
    previousPrice: g.previousPrice,
    fallbackPrice: g.fallbackPrice,
  });
}

describe('properties', () => {
  test('never above the cap, the transaction within its cap, and capped exactly when the cap bound', () => {
    fc.assert(
      fc.property(questionArb, (g) => {
        const q = toQuestion(g);
        const a = estimateComputeUnitPrice(q);
        const cap = capPrice(q.capLamports, q.baseFeeLamports, q.computeUnits);
        assert.ok(a.microLamportsPerCu >= 0n && a.microLamportsPerCu <= cap);
        if (q.capLamports >= q.baseFeeLamports) assert.ok(transactionLamports(a.microLamportsPerCu, q.computeUnits, q.baseFeeLamports) <= q.capLamports);
        const uncapped = estimateComputeUnitPrice({ ...q, capLamports: 10n ** 30n });
        assert.equal(a.capped, uncapped.microLamportsPerCu > cap);
        if (!a.capped) assert.equal(a.microLamportsPerCu, uncapped.microLamportsPerCu);
      }),
    );
  });

  test('at least the level’s floor and half again a previous attempt, unless capped', () => {
    fc.assert(
      fc.property(questionArb, (g) => {
        const q = toQuestion(g);
        const a = estimateComputeUnitPrice(q);
        if (a.capped) return;
        assert.ok(a.microLamportsPerCu >= LEVEL_RULES[q.level].floor);
        if (q.previousPrice !== undefined) assert.ok(a.microLamportsPerCu * 10_000n >= q.previousPrice * ESCALATION_BPS);
      }),
    );
  });

  test('a dearer market never lowers the price', () => {
    fc.assert(
      fc.property(questionArb, fc.array(fc.bigInt({ min: 0n, max: 1_000_000n }), { minLength: 160, maxLength: 160 }), (g, raise) => {
        if (!g.asked) return;
        const q = toQuestion(g);
        const dearer = { ...q, market: { ...q.market!, slots: q.market!.slots.map((s, i) => ({ slot: s.slot, fee: s.fee + raise[i]! })) } };
        assert.ok(estimateComputeUnitPrice(dearer).microLamportsPerCu >= estimateComputeUnitPrice(q).microLamportsPerCu);
      }),
    );
  });

  test('the quantile is one of the values, and rises with q', () => {
    fc.assert(
      fc.property(fc.array(feeArb, { minLength: 1, maxLength: 50 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        assert.ok(xs.includes(quantile(xs, lo)!));
        assert.ok(quantile(xs, lo)! <= quantile(xs, hi)!);
      }),
    );
  });
});
