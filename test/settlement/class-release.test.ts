/**
 * Class release end to end (docs/spec.md §9) on a simulated Hush (test/support/sim-hush.ts: the real
 * composition, privacy on, mainnet's 400 ms slots, time that runs only as the test waits): standard transfers
 * are paid in classes — not before k of the class wait or the oldest reaches the end of its hold — and a
 * non-standard one at once, each for its exact amount, exactly once, never in its deposit's slot or the next
 * nor with its deposit's blockhash; the status record says when a held order goes at the latest and, after,
 * the set it went with, as an outside reader counts it on the chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { benchSpanSlots, chainBursts } from '../support/chain-bursts.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { at, completedOnce, depositOne, depositTogether, payoutSlots, placeUsdc, releasedWith } from '../support/sim-privacy.ts';

const K = 3;
/** The delay budget; a class goes at the latest its spread's max and two seconds before it runs out. */
const BUDGET_S = 12;
const HOLD_S = BUDGET_S - 0.6 - 2;
const SLOT_MS = 400;

describe('class release', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 31, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: String(K), HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S) } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('standard transfers wait for their class (k deposits or the hold); a free amount is paid at once; privacy says which', async (t) => {
    const cls = [await placeUsdc(h, acct, '1000000'), await placeUsdc(h, acct, '1000000'), await placeUsdc(h, acct, '1000000')];
    const lone = await placeUsdc(h, acct, '10000000');
    const free = await placeUsdc(h, acct, '5370000');
    for (const o of [...cls, lone]) assert.equal(o.quote.privacy.standard, true);
    assert.deepEqual({ ...free.quote.privacy, suggestedAmounts: undefined }, { standard: false, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 0, suggestedAmounts: undefined, basis: 'measured' });

    // Two of the class, the lone member of another class and the free amount, together.
    const [d0, d1, loneDeposit, freeDeposit] = await depositTogether(h, acct.client, [cls[0]!, cls[1]!, lone, free]);
    const first = [d0!, d1!];
    // Two of a class of three wait (well short of the cap), while the free amount goes.
    const freeRec = await completedOnce(h, acct.client, free, freeDeposit!, 60_000);
    // Due without waiting for a class: Hush's own decision, read where it records it.
    const { due } = (await h.drive(h.db.query<{ due: Date }>('SELECT payout_due_at AS due FROM orders WHERE tracking_id = $1', [free.trackingId]))).rows[0]!;
    t.diagnostic(`the free amount: due ${due.getTime() - freeDeposit!.confirmedAt} ms after its confirmation, sending after ${at(freeRec, 'sending') - freeDeposit!.confirmedAt} ms`);
    assert.ok(due.getTime() - freeDeposit!.confirmedAt <= 2 * SLOT_MS + 1000, 'a non-standard payout waits only the two slots\' floor, not for a class');
    assert.deepEqual(freeRec.privacy, { standard: false, releaseBy: null, releasedWith: null, releasedWithPending: 'not_private', heldSeconds: null });
    for (const [i, o] of cls.slice(0, 2).entries()) {
      const readAt = h.now();
      assert.ok(readAt < first[i]!.confirmedAt + HOLD_S * 1000, 'read while the hold still runs');
      const { status, privacy } = expectOk(await acct.client.status(o.trackingId)).order as any;
      assert.equal(status, 'deposit_confirmed', 'two of a class of three wait');
      assert.equal(privacy.releasedWith, null);
      assert.equal(privacy.heldSeconds, null);
      const by = Date.parse(privacy.releaseBy);
      assert.ok(by > readAt && by <= first[i]!.confirmedAt + BUDGET_S * 1000, `releaseBy ${privacy.releaseBy}: within the budget of its confirmation`);
    }
    const third = await depositOne(h, acct.client, cls[2]!);
    const deposits = [...first, third];
    for (const [i, o] of cls.entries()) await completedOnce(h, acct.client, o, deposits[i]!, 60_000);
    // releasedWith is counted once the whole release has landed.
    const recs = [];
    for (const o of cls) recs.push(await releasedWith(h, acct.client, o, 60_000));
    for (const [i, rec] of recs.entries()) {
      assert.ok(at(rec, 'sending') >= third.confirmedAt, `${rec.trackingId} sent before its class was complete`);
      assert.ok(at(rec, 'sending') < deposits[i]!.confirmedAt + HOLD_S * 1000, `${rec.trackingId} went with its class, not at the end of its hold`);
      assert.equal(rec.privacy.standard, true);
      assert.equal(rec.privacy.releaseBy, null, 'released: no longer waiting');
      assert.ok(rec.privacy.heldSeconds >= 0 && rec.privacy.heldSeconds <= BUDGET_S, `held ${rec.privacy.heldSeconds} s, within the budget`);
    }
    // One release of three, and each says the burst its payout landed in, as an outside reader counts it.
    const { rows } = await h.drive(h.db.query<{ size: number; at: string }>('SELECT class_release_size AS size, class_released_at::text AS at FROM orders WHERE tracking_id = ANY($1)', [recs.map((r) => r.trackingId)]));
    assert.deepEqual(rows.map((r) => r.size), [K, K, K], 'one release of the class');
    assert.equal(new Set(rows.map((r) => r.at)).size, 1, 'released together');
    const slots = await payoutSlots(h, recs);
    const bursts = chainBursts(slots, benchSpanSlots(400, SLOT_MS));
    for (const rec of recs) assert.equal(rec.privacy.releasedWith, bursts.get(rec.trackingId), `${rec.trackingId}: released with what the chain shows (slots ${[...slots.values()]})`);
    assert.deepEqual(recs.map((r) => r.privacy.releasedWith), [K, K, K], 'the release landed as one burst');
    // The lone deposit of its class is released at the end of its hold, alone.
    await completedOnce(h, acct.client, lone, loneDeposit!, 60_000);
    const loneRec = await releasedWith(h, acct.client, lone, 60_000);
    assert.ok(at(loneRec, 'sending') >= loneDeposit!.confirmedAt + HOLD_S * 1000, 'a class below k waits to the end of its hold');
    assert.equal(loneRec.privacy.releasedWith, 1);
    assert.ok(loneRec.privacy.heldSeconds >= Math.floor(HOLD_S) && loneRec.privacy.heldSeconds <= BUDGET_S, `held ${loneRec.privacy.heldSeconds} s`);
  });
});
