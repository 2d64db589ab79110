/**
 * A partner's first sends, from the partner's side (issue 71), on a simulated Hush with the operator's defaults
 * (target 30, an 840 s budget): a test send repeated on an otherwise idle Hush is quoted as going alone and goes
 * within the floor, the second and a third a minute later too; and deposits Hush refunds (short, over) move no
 * quote of their class.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { depositOf } from '../../sim/users.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, USDC, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { at, completedOnce, depositOne, placeUsdc, releasedWith, usdcSender } from '../support/sim-privacy.ts';

/** A send within the floor: confirmed to sending within a few seconds (the two slots and a pass or two), not a hold. */
const FLOOR_MS = 5_000;

describe('a partner\'s test sends on a fresh Hush', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 71 });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('send, send again, and a third time a minute later: each quoted alone within the floor, each paid within it, alone', async () => {
    const sender = await usdcSender(h);
    for (const [k, pauseMs] of [0, 0, 60_000].entries()) {
      await h.advance(pauseMs);
      const o = await placeUsdc(h, acct, String(10n * USDC), { sender });
      const q = o.quote.privacy;
      assert.equal(q.standard, true);
      assert.deepEqual([q.anonymitySet, q.anonymitySetLikely], [1, 1], `send ${k + 1}: quoted ${JSON.stringify(q)}`);
      assert.ok(q.delaySeconds <= 2, `send ${k + 1}: quoted ${q.delaySeconds} s`);
      const d = await depositOne(h, acct.client, o);
      const rec = await completedOnce(h, acct.client, o, d, 120_000);
      const heldMs = at(rec, 'sending') - d.confirmedAt;
      assert.ok(heldMs <= FLOOR_MS, `send ${k + 1}: held ${heldMs} ms for a crowd its history cannot show`);
      // Counted as the chain shows it (landed-bursts.ts): the first two sends' payouts land seconds apart, which an
      // outside reader takes for one burst of two; the third, a minute on, lands alone.
      const landedWith = (await releasedWith(h, acct.client, o, 60_000)).privacy.releasedWith;
      assert.ok(k < 2 ? landedWith >= 1 && landedWith <= 2 : landedWith === 1, `send ${k + 1}: releasedWith ${landedWith}`);
    }
  });

  test('wrong-amount deposits, refunded, move no quote of their class', async () => {
    const quoteOf = async () => {
      const s = await usdcSender(h);
      const req = { amount: String(100n * USDC), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: s.address, recipientAddress: h.address() };
      return expectOk(await acct.client.quote(req)).quote.privacy;
    };
    const before = await quoteOf();
    assert.deepEqual([before.anonymitySet, before.anonymitySetLikely, before.basis], [1, 1, 'no_traffic']);
    // Two orders of that class (100 USDC, a class of this test's own) paid 90 and 120: both refunded, as an
    // attacker stretching the class's wait would place them, from two wallets.
    for (const amount of [90n * USDC, 120n * USDC]) {
      const sender = await h.wallet({ sol: 1_000_000_000n, usdc: 200n * USDC });
      const o = await placeUsdc(h, acct, String(100n * USDC), { sender });
      await h.drive(h.chain.transferToDeposit(sender, depositOf(o.order.transaction), 'usdc', amount, true));
      const rec = await h.waitForOrder(acct.client, o.trackingId, ['refunded'], 300_000);
      assert.equal(rec.status, 'refunded');
    }
    // The class traffic is read every few seconds: well past its next read, the quote is what it was.
    await h.advance(30_000);
    const afterRefunds = await quoteOf();
    assert.deepEqual([afterRefunds.anonymitySet, afterRefunds.anonymitySetLikely, afterRefunds.delaySeconds, afterRefunds.basis], [before.anonymitySet, before.anonymitySetLikely, before.delaySeconds, before.basis]);
  });
});
