/**
 * A cold crowd end to end (docs/spec.md §9) on a simulated Hush (test/support/sim-hush.ts): on a fresh
 * Hush, a class whose members arrive together is traffic, not "no traffic" — the first of them are held for
 * the ones still arriving and the class goes out as one release — while a lone member of a class nobody else
 * uses is still not held for nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { at, completedOnce, depositOne, depositTogether, placeUsdc, releasedWith, usdcSender } from '../support/sim-privacy.ts';

const TARGET = 6;
const BUDGET_S = 30;
const HOLD_S = BUDGET_S - 0.6 - 2;

describe('a cold crowd', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 41, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_TARGET_SET: String(TARGET), HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S) } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('the first of a crowd are held for the rest and the class goes as one release; a lone member of another class is not held', async () => {
    // Everything is ordered first: a fresh Hush whose only traffic is this crowd.
    const senders = [];
    for (let i = 0; i <= TARGET; i++) senders.push(await usdcSender(h));
    const crowd = [];
    for (let i = 0; i < TARGET; i++) crowd.push(await placeUsdc(h, acct, '1000000', { sender: senders[i] }));
    const lone = await placeUsdc(h, acct, '10000000', { sender: senders[TARGET] });
    // Three of the class arrive in one slot, so no release pass falls between them and sees the first alone
    // (which it rightly would not hold). A waiting member's deposit must count as its class's traffic, or the
    // pass sends them at once as a class with no traffic: a release of three, then the other three alone.
    const first = await depositTogether(h, acct.client, crowd.slice(0, 3));
    // The lone member of another class, after them: the release pass that lets it go (it has no traffic) has
    // seen the three, and kept them.
    const loneDeposit = await depositOne(h, acct.client, lone);
    const loneSending = await h.waitForOrder(acct.client, lone.trackingId, ['sending', 'completed'], 60_000);
    assert.ok(at(loneSending, 'sending') - loneDeposit.confirmedAt < (HOLD_S * 1000) / 2, `the lone member held ${at(loneSending, 'sending') - loneDeposit.confirmedAt} ms`);
    for (const [i, o] of crowd.slice(0, 3).entries()) {
      assert.ok(h.now() < first[i]!.confirmedAt + HOLD_S * 1000 - 1000, 'read while the hold still runs');
      const rec = expectOk(await acct.client.status(o.trackingId)).order as any;
      assert.equal(rec.status, 'deposit_confirmed', 'held for the crowd still arriving');
    }
    // The rest of the crowd at once: its orders are a few seconds old, so its traffic has not gone quiet.
    const rest = await depositTogether(h, acct.client, crowd.slice(3));
    const deposits = [...first, ...rest];
    for (const [i, o] of crowd.entries()) await completedOnce(h, acct.client, o, deposits[i]!, 120_000);
    const recs = [];
    for (const o of crowd) recs.push(await releasedWith(h, acct.client, o, 60_000));
    const sizes = recs.map((r) => r.privacy.releasedWith);
    assert.deepEqual(sizes, new Array(TARGET).fill(TARGET), `the crowd went as one release of ${TARGET}: ${sizes}`);
    // The lone member's class has no other deposit: not held for nothing.
    await completedOnce(h, acct.client, lone, loneDeposit, 60_000);
    assert.equal((await releasedWith(h, acct.client, lone, 60_000)).privacy.releasedWith, 1);
  });
});
