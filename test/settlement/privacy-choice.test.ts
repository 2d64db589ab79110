/**
 * The partner's privacy choice end to end (docs/spec.md §4, §9) on a simulated Hush (test/support/sim-hush.ts)
 * with the default target set (30): on a fresh Hush a default private send is not held for nothing (the quote
 * says `no_traffic`, and it goes out alone within seconds, never in its deposit's slot or the next), while
 * orders that asked for a set of three wait for each other and go together, each paid exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { at, completedOnce, depositOne, placeUsdc, releasedWith, usdcSender } from '../support/sim-privacy.ts';

const BUDGET_S = 20;
/** The default hold: the budget less the spread's max and two passes. */
const HOLD_S = BUDGET_S - 0.6 - 2;

describe('privacy chosen per quote', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 51, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S), HUSH_PRIVACY_MAX_WAIT_S: '60' } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('a fresh Hush: a default private send is quoted no_traffic and goes out alone within seconds, not at the end of its hold', async () => {
    const lone = await placeUsdc(h, acct, '1000000');
    const q = lone.quote.privacy;
    assert.deepEqual([q.standard, q.anonymitySet, q.basis, q.requested], [true, 1, 'no_traffic', undefined]);
    assert.ok(q.delaySeconds <= 2, `quoted ${q.delaySeconds} s`);
    const d = await depositOne(h, acct.client, lone);
    const rec = await completedOnce(h, acct.client, lone, d, 60_000);
    const heldMs = at(rec, 'sending') - d.confirmedAt;
    assert.ok(heldMs < (HOLD_S * 1000) / 2, `held ${heldMs} ms for a set of one (the hold is ${HOLD_S} s)`);
    assert.equal((await releasedWith(h, acct.client, lone, 60_000)).privacy.releasedWith, 1);
  });

  test('three that asked for a set of three wait for each other and go together; the quote echoes the choice', async () => {
    const senders = [await usdcSender(h), await usdcSender(h), await usdcSender(h), await usdcSender(h)];
    const crowd = [];
    for (const sender of senders.slice(0, 3)) crowd.push(await placeUsdc(h, acct, '10000000', { privacy: { minAnonymitySet: 3 }, sender }));
    for (const o of crowd) {
      assert.deepEqual(o.quote.privacy.requested, { minAnonymitySet: 3 });
      assert.equal(o.quote.privacy.basis, 'no_traffic');
      // Nothing measured says company will come: the whole hold is quoted, and no company promised.
      assert.equal(o.quote.privacy.anonymitySet, 1);
      assert.ok(o.quote.privacy.delaySeconds > HOLD_S, `quoted ${o.quote.privacy.delaySeconds} s`);
    }
    const first = [await depositOne(h, acct.client, crowd[0]!), await depositOne(h, acct.client, crowd[1]!)];
    // A default send of a class nobody else uses, confirmed after the two: not held for nothing, so the
    // release pass that lets it go (the state awaited) has seen the two, and keeps them waiting for their set.
    const control = await placeUsdc(h, acct, '100000000', { sender: senders[3] });
    assert.equal(control.quote.privacy.requested, undefined);
    await depositOne(h, acct.client, control);
    await h.waitForOrder(acct.client, control.trackingId, ['sending', 'completed'], 60_000);
    for (const o of crowd.slice(0, 2)) {
      const rec = expectOk(await acct.client.status(o.trackingId)).order as any;
      assert.equal(rec.status, 'deposit_confirmed', 'held for the set it asked for');
      assert.equal(rec.privacy.releasedWith, null);
    }
    const third = await depositOne(h, acct.client, crowd[2]!);
    const deposits = [...first, third];
    for (const [i, o] of crowd.entries()) await completedOnce(h, acct.client, o, deposits[i]!, 120_000);
    for (const o of crowd) {
      const rec = await releasedWith(h, acct.client, o, 60_000);
      assert.equal(rec.privacy.releasedWith, 3, 'released together, below the operator\'s target of 30: the set they asked for');
      assert.ok(at(rec, 'sending') >= third.confirmedAt, 'not before the third arrived');
    }
  });
});
