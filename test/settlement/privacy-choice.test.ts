/**
 * The partner's privacy choice end to end (docs/spec.md §4, §9) on the local chain with privacy on and the
 * default target set (30): on a fresh Hush a default private send is not held for nothing (the quote says
 * `no_traffic`, and it goes out alone within seconds, never in its deposit's slot or the next), while orders
 * that asked for a set of three wait for each other and go together, each paid exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { fundedSender, startTestHush, expectOk, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { untilStatus } from '../support/order-events.ts';
import { assertPaidOnce, chainAt, depositWithRefresh, fetchLanded, placeOrder, waitForOrder, waitForReleasedWith, type Chain, type PlacedOrder } from '../support/settlement.ts';

/** The default hold: the budget less the spread's max and two passes. */
const BUDGET_S = 20;
const HOLD_S = BUDGET_S - 0.6 - 2;

describe('privacy chosen per quote', () => {
  let t: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  before(async () => {
    t = await startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S), HUSH_PRIVACY_MAX_WAIT_S: '60' } });
    acct = await t.createAccount();
    chain = chainAt(t.chainUrl);
  });
  after(async () => t?.close());

  async function order(amount: string, privacy?: { minAnonymitySet: number }): Promise<{ placed: PlacedOrder; sender: KeyPairSigner; recipient: Address }> {
    const sender = await fundedSender(t, { usdc: 100_000_000n });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount, sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient, ...(privacy ? { privacy } : {}) });
    return { placed, sender, recipient };
  }
  const at = (rec: any, status: string): number => Date.parse(rec.history.find((h: any) => h.status === status).at);
  async function deposit(o: { placed: PlacedOrder; sender: KeyPairSigner }): Promise<{ slot: bigint; confirmedAt: number }> {
    const sig = await depositWithRefresh(acct.client, chain, o.placed, o.sender);
    const rec = await waitForOrder(acct.client, o.placed.trackingId, ['deposit_confirmed', 'sending', 'completed'], 30_000);
    return { slot: (await fetchLanded(chain, sig)).slot, confirmedAt: at(rec, 'deposit_confirmed') };
  }
  async function completed(o: { placed: PlacedOrder }, d: { slot: bigint }, timeoutMs: number): Promise<any> {
    const rec = await waitForOrder(acct.client, o.placed.trackingId, ['completed'], timeoutMs);
    await assertPaidOnce(t.db, o.placed.trackingId, 'payout', o.placed.amountOut);
    for (const p of rec.payouts) assert.ok((await fetchLanded(chain, p.signature)).slot >= d.slot + 2n, 'never the deposit\'s slot or the next');
    return rec;
  }

  test('a fresh Hush: a default private send is quoted no_traffic and goes out alone within seconds, not at the end of its hold', async () => {
    const lone = await order('1000000');
    const q = lone.placed.quote.privacy;
    assert.deepEqual([q.standard, q.anonymitySet, q.basis, q.requested], [true, 1, 'no_traffic', undefined]);
    assert.ok(q.delaySeconds <= 2, `quoted ${q.delaySeconds} s`);
    const d = await deposit(lone);
    const rec = await completed(lone, d, 20_000);
    const heldMs = at(rec, 'sending') - d.confirmedAt;
    assert.ok(heldMs < HOLD_S * 1000 / 2, `held ${heldMs} ms for a set of one (the hold is ${HOLD_S} s)`);
    assert.equal((await waitForReleasedWith(acct.client, lone.placed.trackingId, 15_000)).privacy.releasedWith, 1);
  });

  test('three that asked for a set of three wait for each other and go together; the quote echoes the choice', async () => {
    const crowd = await Promise.all([order('10000000', { minAnonymitySet: 3 }), order('10000000', { minAnonymitySet: 3 }), order('10000000', { minAnonymitySet: 3 })]);
    for (const o of crowd) {
      assert.deepEqual(o.placed.quote.privacy.requested, { minAnonymitySet: 3 });
      assert.equal(o.placed.quote.privacy.basis, 'no_traffic');
      // Nothing measured says company will come: the whole hold is quoted, and no company promised.
      assert.equal(o.placed.quote.privacy.anonymitySet, 1);
      assert.ok(o.placed.quote.privacy.delaySeconds > HOLD_S, `quoted ${o.placed.quote.privacy.delaySeconds} s`);
    }
    const first = await Promise.all([deposit(crowd[0]!), deposit(crowd[1]!)]);
    // A default send of a class nobody else uses, confirmed after the two: not held for nothing, so the
    // release pass that lets it go (the event awaited) has seen the two, and keeps them waiting for their set.
    const control = await order('100000000');
    assert.equal(control.placed.quote.privacy.requested, undefined);
    await deposit(control);
    await untilStatus(t.db, control.placed.trackingId, ['sending', 'completed'], 20_000);
    for (const o of crowd.slice(0, 2)) {
      const rec = expectOk(await acct.client.status(o.placed.trackingId)).order as any;
      assert.equal(rec.status, 'deposit_confirmed', 'held for the set it asked for');
      assert.equal(rec.privacy.releasedWith, null);
    }
    const third = await deposit(crowd[2]!);
    const deposits = [...first, third];
    await Promise.all(crowd.map((o, i) => completed(o, deposits[i]!, 30_000)));
    // releasedWith is counted once the whole release has landed (issue 54).
    const recs = await Promise.all(crowd.map((o) => waitForReleasedWith(acct.client, o.placed.trackingId, 15_000)));
    for (const rec of recs) {
      assert.equal(rec.privacy.releasedWith, 3, 'released together, below the operator\'s target of 30: the set they asked for');
      assert.ok(at(rec, 'sending') >= third.confirmedAt - 50, 'not before the third arrived');
    }
  });
});
