/**
 * The deposit transaction's price (src/services/deposit-fees.ts): the fee market's `medium` level over the whole
 * block, at most one call a slot however many orders ask, an order never waiting for a call when the last answer
 * is recent, within the deposit cap and what the SDK signs; the configured price under static pricing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { DEPOSIT_MAX_PRICE, DepositFees } from '../../src/services/deposit-fees.ts';
import { LEVEL_RULES } from '../../src/domain/fee-estimate.ts';
import { ManualClock } from '../support/manual-clock.ts';

const SLOT_MS = 400;

function chain(clock: ManualClock, fee: () => number) {
  const asked: unknown[] = [];
  return {
    asked,
    async post(body: string) {
      const req = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      asked.push(req.params);
      const tip = Math.floor(clock.now() / SLOT_MS);
      return { jsonrpc: '2.0', id: req.id, result: Array.from({ length: 60 }, (_, i) => ({ slot: tip - i, prioritizationFee: fee() })) };
    },
  };
}

describe('the deposit price', () => {
  test("the market's medium level over the whole block, one call a slot for any number of orders", async () => {
    const clock = new ManualClock(1_000_000);
    const c = chain(clock, () => 30_000);
    const fees = new DepositFees(c, { ...loadConfig({}), slotMs: SLOT_MS }, clock);
    const prices = await Promise.all(Array.from({ length: 20 }, () => fees.price()));
    assert.ok(prices.every((p) => p === 30_000n));
    assert.equal(c.asked.length, 1, 'one call for twenty orders');
    assert.deepEqual((c.asked[0] as unknown[])[0], [], 'no account named: not the sender, not the deposit account');
    clock.advance(SLOT_MS);
    await fees.price();
    assert.equal(c.asked.length, 2, 'a slot later, one more');
  });

  test('an order takes the last answer while a fresh one is asked; a calm market leaves the level floor', async () => {
    const clock = new ManualClock(1_000_000);
    let fee = 0;
    const c = chain(clock, () => fee);
    const fees = new DepositFees(c, { ...loadConfig({}), slotMs: SLOT_MS }, clock);
    assert.equal(await fees.price(), LEVEL_RULES.medium.floor);
    fee = 50_000;
    clock.advance(2_000);
    assert.equal(await fees.price(), LEVEL_RULES.medium.floor, 'the last answer (2 s old), not a wait for the call');
    await new Promise((ok) => setImmediate(ok));
    assert.equal(await fees.price(), 50_000n, 'the call it started has answered');
  });

  test('never above the deposit cap nor what the SDK signs; static pricing: the configured price, no call', async () => {
    const clock = new ManualClock(1_000_000);
    const config = loadConfig({ HUSH_FEE_CAP_LAMPORTS: 'deposit=20000' });
    const fees = new DepositFees(chain(clock, () => 0), { ...config, slotMs: SLOT_MS }, clock);
    assert.equal(fees.ceiling(30_000), 500_000n, '(20,000 − 5,000) × 10⁶ / 30,000');
    const loose = new DepositFees(chain(clock, () => 0), { ...loadConfig({ HUSH_FEE_CAP_LAMPORTS: 'deposit=1000000' }), slotMs: SLOT_MS }, clock);
    assert.equal(loose.ceiling(30_000), DEPOSIT_MAX_PRICE);
    const c = chain(clock, () => 9);
    const fixed = new DepositFees(c, { ...loadConfig({ HUSH_FEE_PRICING: 'static', HUSH_COMPUTE_UNIT_PRICE: '1234' }), slotMs: SLOT_MS }, clock);
    assert.equal(await fixed.price(), 1234n);
    assert.equal(c.asked.length, 0);
  });
});
