/**
 * Payouts signed while their orders wait for the floor (docs/performance.md, "Settlement at the raw loop's
 * pace"), on a simulated Hush: a burst of off-menu orders deposited together is paid with the payouts the worker
 * signed as their deposits confirmed, each paid exactly once, never before the floor; a presigned payout priced
 * below the market at its due time is signed again, never sent as it was, and one within its band of a market
 * that fell a little goes as signed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, USDC, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { completedOnce, depositTogether, placeUsdc } from '../support/sim-privacy.ts';

/** 10.5 USDC: off the decade menu, so paid at the floor (two slots after the deposit's confirmation). */
const OFF_MENU = String((105n * USDC) / 10n);

describe('presigned payouts', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 72 });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  const queue = () => h.hush.worker!.context.payouts;

  test('a burst deposited together is paid with the payouts signed during the floor, each once', async () => {
    const before = { ...queue().tally };
    const orders = [];
    for (let i = 0; i < 6; i++) orders.push(await placeUsdc(h, acct, OFF_MENU));
    // A steady market: the burst's own deposits landing may lift the payout price a rung between a payout's signing
    // and its due time (whether a reading falls in between is the seed's luck), and a moved market re-signs by
    // design (the tests below). Here the payout price holds at what it was when the burst began.
    const fees = h.hush.worker!.context.fees;
    const price = fees.price.bind(fees);
    const steady = price('payout').microLamportsPerCu;
    fees.price = (purpose, previous) => {
      const a = price(purpose, previous);
      return purpose === 'payout' ? { ...a, microLamportsPerCu: steady } : a;
    };
    let deposits;
    try {
      deposits = await depositTogether(h, acct.client, orders);
      for (const [i, o] of orders.entries()) await completedOnce(h, acct.client, o, deposits[i]!, 120_000);
    } finally {
      fees.price = price;
    }
    const used = queue().tally.used - before.used;
    const signed = queue().tally.signed - before.signed;
    assert.ok(signed >= 6, `every deposit confirmed by the worker had its payout signed ahead (${signed})`);
    assert.ok(used >= 5, `the payouts went as signed ahead (${used} of 6; resigned: ${JSON.stringify(queue().tally.resigned)})`);
    assert.equal(queue().presignedCount, 0, 'nothing signed ahead is left once all are paid');
  });

  /**
   * Runs one off-menu order with the payout price moved once its payout was signed ahead: `move` maps the price a
   * payout gets from then on (the fee market moving, issue 73). Returns how the presign fared.
   */
  async function withMovedPrice(move: (price: bigint) => bigint): Promise<{ used: number; repriced: number }> {
    const before = { ...queue().tally, resigned: { ...queue().tally.resigned } };
    const fees = h.hush.worker!.context.fees;
    const price = fees.price.bind(fees);
    const o = await placeUsdc(h, acct, OFF_MENU);
    let moved = false;
    fees.price = (purpose, previous) => {
      const a = price(purpose, previous);
      return moved ? { ...a, microLamportsPerCu: move(a.microLamportsPerCu) } : a;
    };
    try {
      const wait = depositTogether(h, acct.client, [o]);
      await h.until('its payout signed ahead', async () => (queue().tally.signed > before.signed ? true : null), 30_000);
      moved = true;
      const [d] = await wait;
      const rec = await completedOnce(h, acct.client, o, d!, 120_000);
      assert.equal(rec.payouts.length, 1);
    } finally {
      fees.price = price;
    }
    return { used: queue().tally.used - before.used, repriced: (queue().tally.resigned.repriced ?? 0) - (before.resigned.repriced ?? 0) };
  }

  test('a presigned payout priced below the market at its due time is signed again, never sent below it', async () => {
    const { used, repriced } = await withMovedPrice((p) => p + 1n);
    assert.equal(used, 0, 'the presigned payout did not go');
    assert.equal(repriced, 1, 'it was signed again at the new price');
  });

  test('a presigned payout within its band of a market that fell goes as signed (no re-sign for a small move)', async () => {
    const { used, repriced } = await withMovedPrice((p) => (p * 9n) / 10n);
    assert.equal(repriced, 0, 'not signed again: at most a quarter above the market');
    assert.equal(used, 1, 'the presigned payout went as signed');
  });
});
