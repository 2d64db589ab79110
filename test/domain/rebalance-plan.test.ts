import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parsePrice } from '../../src/domain/price.ts';
import { type RebalancePolicy, lotsIn, planRebalance, unitsForLots, usdValue } from '../../src/domain/rebalance-plan.ts';
import { type PricedAsset, convertForSwap } from '../../src/domain/swap-conversion.ts';

const PRICES = new Map<string, PricedAsset>([
  ['sol', { price: parsePrice('150'), decimals: 9 }],
  ['usdc', { price: parsePrice('1'), decimals: 6 }],
  ['usdt', { price: parsePrice('1'), decimals: 6 }],
  ['bonk', { price: parsePrice('0.00002'), decimals: 5 }],
]);
const SOL = 10n ** 9n;
const USD = 10n ** 6n;
const BONK = 10n ** 5n;
const POLICY: RebalancePolicy = { lotUsd: parsePrice('1000'), slippageBps: 100, toleranceBps: 1000 };

describe('planRebalance', () => {
  it('moves whole lots from the over-target asset to the under-target one', () => {
    // SOL target 500 SOL, holds 573 (+14.6 %: $10 950 surplus = 10 lots); USDC target 250k, holds 200k ($50k deficit)
    const moves = planRebalance(
      new Map([['sol', 573n * SOL], ['usdc', 200_000n * USD], ['usdt', 250_000n * USD]]),
      new Map([['sol', 500n * SOL], ['usdc', 250_000n * USD], ['usdt', 250_000n * USD]]),
      PRICES,
      POLICY,
    );
    assert.equal(moves.length, 1);
    const m = moves[0]!;
    assert.equal(m.fromAssetId, 'sol');
    assert.equal(m.toAssetId, 'usdc');
    assert.equal(m.lots, 10n);
    // 10 lots = $10 000 of SOL at $150 = 66.666666666… SOL, rounded down: unrelated to any order amount
    assert.equal(m.amountIn, 66_666_666_666n);
    // its USDC value ($9 999.9999999) less 1 % slippage, rounded down
    assert.equal(m.minAmountOut, convertForSwap(66_666_666_666n, PRICES.get('sol')!, PRICES.get('usdc')!, 100));
    assert.equal(m.minAmountOut, 9_899_999_999n);
  });

  it('does nothing inside the tolerance band or below one lot', () => {
    // 5 % over / under: inside a 10 % band
    assert.deepEqual(planRebalance(new Map([['sol', 525n * SOL], ['usdc', 237_500n * USD]]), new Map([['sol', 500n * SOL], ['usdc', 250_000n * USD]]), PRICES, POLICY), []);
    // far outside the band, but worth less than a lot ($1000): tiny targets
    assert.deepEqual(planRebalance(new Map([['usdt', 900n * USD], ['usdc', 0n]]), new Map([['usdt', 100n * USD], ['usdc', 100n * USD]]), PRICES, POLICY), []);
  });

  it('ignores assets without a target or a price, and counts missing inventory as zero', () => {
    const prices = new Map(PRICES);
    prices.delete('usdt');
    const moves = planRebalance(
      new Map([['sol', 700n * SOL], ['usdt', 0n], ['bonk', 10n ** 12n * BONK]]), // bonk: no target
      new Map([['sol', 500n * SOL], ['usdc', 10_000n * USD], ['usdt', 50_000n * USD]]), // usdc: no inventory entry; usdt: no price
      prices,
      POLICY,
    );
    assert.deepEqual(moves.map((m) => [m.fromAssetId, m.toAssetId, m.lots]), [['sol', 'usdc', 10n]]);
  });

  it('pairs the largest surplus with the largest deficit, deterministically', () => {
    const moves = planRebalance(
      new Map([['sol', 600n * SOL], ['bonk', 2_000_000_000n * BONK], ['usdc', 200_000n * USD], ['usdt', 245_000n * USD]]),
      new Map([['sol', 500n * SOL], ['bonk', 1_000_000_000n * BONK], ['usdc', 250_000n * USD], ['usdt', 250_000n * USD]]),
      PRICES,
      { ...POLICY, toleranceBps: 0 },
    );
    // surpluses: bonk $20k (20 lots), sol $15k (15); deficits: usdc $50k (50), usdt $5k (5)
    assert.deepEqual(
      moves.map((m) => [m.fromAssetId, m.toAssetId, m.lots]),
      [
        ['bonk', 'usdc', 20n],
        ['sol', 'usdc', 15n],
      ],
    );
  });

  it('rejects a non-positive lot and a bad tolerance', () => {
    assert.throws(() => planRebalance(new Map(), new Map(), PRICES, { ...POLICY, lotUsd: { num: 0n, den: 1n } }), RangeError);
    assert.throws(() => planRebalance(new Map(), new Map(), PRICES, { ...POLICY, toleranceBps: -1 }), RangeError);
  });

  it('never sells more than the surplus, never overshoots a deficit, and sizes are whole lots (property)', () => {
    const ids = ['sol', 'usdc', 'usdt', 'bonk'];
    const unitsArb = fc.bigInt({ min: 0n, max: 10n ** 18n });
    fc.assert(
      fc.property(
        fc.tuple(unitsArb, unitsArb, unitsArb, unitsArb),
        fc.tuple(unitsArb, unitsArb, unitsArb, unitsArb),
        fc.constantFrom('1', '250', '1000', '0.5'),
        fc.integer({ min: 0, max: 3000 }),
        (inv, tgt, lot, tol) => {
          const inventory = new Map(ids.map((id, i) => [id, inv[i]!]));
          const targets = new Map(ids.map((id, i) => [id, tgt[i]!]));
          const policy = { lotUsd: parsePrice(lot), slippageBps: 100, toleranceBps: tol };
          const moves = planRebalance(inventory, targets, PRICES, policy);
          const sold = new Map<string, bigint>();
          const boughtLots = new Map<string, bigint>();
          for (const m of moves) {
            assert.notEqual(m.fromAssetId, m.toAssetId);
            assert.ok(m.lots >= 1n && m.amountIn > 0n);
            const from = PRICES.get(m.fromAssetId)!;
            assert.equal(m.amountIn, unitsForLots(m.lots, from, policy.lotUsd));
            // amountIn is worth at most `lots` lots and more than `lots` lots minus one base unit
            const v = usdValue(m.amountIn, from);
            assert.ok(v.num * policy.lotUsd.den <= m.lots * policy.lotUsd.num * v.den);
            assert.equal(m.minAmountOut, convertForSwap(m.amountIn, from, PRICES.get(m.toAssetId)!, 100));
            sold.set(m.fromAssetId, (sold.get(m.fromAssetId) ?? 0n) + m.amountIn);
            boughtLots.set(m.toAssetId, (boughtLots.get(m.toAssetId) ?? 0n) + m.lots);
          }
          for (const [id, amount] of sold) assert.ok(amount <= inventory.get(id)! - targets.get(id)!, `${id} sold beyond its surplus`);
          for (const [id, lots] of boughtLots) {
            assert.ok(lots <= lotsIn(targets.get(id)! - inventory.get(id)!, PRICES.get(id)!, policy.lotUsd), `${id} bought beyond its deficit`);
            assert.ok(!sold.has(id), `${id} both bought and sold`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
