/**
 * Class release end to end (docs/spec.md §9) on the local chain with privacy on: standard transfers are
 * paid in classes — not before k of the class wait or the oldest reaches the end of its hold — and a
 * non-standard one at once, each for its exact amount, exactly once, never in its deposit's slot or the
 * next; the status record says when a held order goes at the latest and, after, the set it went with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { expectOk, fundedSender, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { benchSpanSlots, chainBursts } from '../support/chain-bursts.ts';
import { assertPaidOnce, chainAt, depositWithRefresh, fetchLanded, placeOrder, waitForOrder, waitForReleasedWith, type Chain, type PlacedOrder } from '../support/settlement.ts';

const K = 3;
/** The delay budget; a class goes at the latest its spread's max and two passes before it runs out. */
const BUDGET_S = 12;
const HOLD_S = BUDGET_S - 0.6 - 2;

describe('class release', () => {
  let t: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  before(async () => {
    t = await startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: String(K), HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S) } });
    acct = await t.createAccount();
    chain = chainAt(t.chainUrl);
  });
  after(async () => t?.close());

  async function order(amount: string): Promise<{ placed: PlacedOrder; sender: KeyPairSigner; recipient: Address }> {
    const sender = await fundedSender(t, { usdc: 100_000_000n });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount, sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient });
    return { placed, sender, recipient };
  }
  /** When the order reached a status, from its history. */
  const at = (rec: any, status: string): number => Date.parse(rec.history.find((h: any) => h.status === status).at);
  const blockhashOf = async (signature: string): Promise<string> =>
    ((await chain.rpc.getTransaction(signature as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send()) as any).transaction.message.recentBlockhash;
  async function depositAndConfirm(o: { placed: PlacedOrder; sender: KeyPairSigner }): Promise<{ slot: bigint; confirmedAt: number; blockhash: string }> {
    // A loaded machine may take longer to fund and place the others than a blockhash lives (50 ms slots).
    const sig = await depositWithRefresh(acct.client, chain, o.placed, o.sender);
    const rec = await waitForOrder(acct.client, o.placed.trackingId, ['deposit_confirmed', 'sending', 'completed'], 30_000);
    return { slot: (await fetchLanded(chain, sig)).slot, confirmedAt: at(rec, 'deposit_confirmed'), blockhash: await blockhashOf(sig) };
  }
  async function completed(o: { placed: PlacedOrder }, deposit: { slot: bigint; blockhash: string }, timeoutMs: number): Promise<any> {
    const rec = await waitForOrder(acct.client, o.placed.trackingId, ['completed'], timeoutMs);
    await assertPaidOnce(t.db, o.placed.trackingId, 'payout', o.placed.amountOut);
    for (const p of rec.payouts) {
      assert.ok((await fetchLanded(chain, p.signature)).slot >= deposit.slot + 2n, 'no payout in the deposit\'s slot or the next');
      // A payout two slots after its deposit would otherwise often reuse the blockhash Hush put in it.
      assert.notEqual(await blockhashOf(p.signature), deposit.blockhash, 'a payout never carries its deposit\'s blockhash');
    }
    return rec;
  }

  test('standard transfers wait for their class (k deposits or the hold); a free amount is paid at once; privacy says which', async (t2) => {
    const cls = await Promise.all([order('1000000'), order('1000000'), order('1000000')]);
    const lone = await order('10000000');
    const free = await order('5370000');
    for (const o of [...cls, lone]) assert.equal(o.placed.quote.privacy.standard, true);
    assert.deepEqual({ ...free.placed.quote.privacy, suggestedAmounts: undefined }, { standard: false, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 0, suggestedAmounts: undefined, basis: 'measured' });

    const first = await Promise.all([depositAndConfirm(cls[0]!), depositAndConfirm(cls[1]!)]);
    const loneDeposit = await depositAndConfirm(lone);
    const freeDeposit = await depositAndConfirm(free);
    // Two of a class of three wait (well short of the cap), while the free amount goes.
    const freeRec = await completed(free, freeDeposit, 20_000);
    // Due without waiting for a class: Hush's own decision, read where it records it (when the payout was
    // then sent is the machine's speed: a loaded run once took 8.4 s for the steps in between).
    const { due } = (await t.db.query<{ due: Date }>('SELECT payout_due_at AS due FROM orders WHERE tracking_id = $1', [free.placed.trackingId])).rows[0]!;
    t2.diagnostic(`the free amount: due ${due.getTime() - freeDeposit.confirmedAt} ms after its confirmation, sending after ${at(freeRec, 'sending') - freeDeposit.confirmedAt} ms`);
    assert.ok(due.getTime() - freeDeposit.confirmedAt < HOLD_S * 1000 - 1000, 'a non-standard payout does not wait for a class');
    assert.deepEqual(freeRec.privacy, { standard: false, releaseBy: null, releasedWith: null, heldSeconds: null });
    for (const [i, o] of cls.slice(0, 2).entries()) {
      const readAt = Date.now();
      const { status, privacy } = expectOk(await acct.client.status(o.placed.trackingId)).order as any;
      // Held until the hold ends, which a loaded run may already have reached by now (then released, rightly).
      if (readAt < first[i]!.confirmedAt + HOLD_S * 1000) {
        assert.equal(status, 'deposit_confirmed', 'two of a class of three wait');
        // Still waiting (no heldSeconds yet): its latest release time is within the budget. Released already
        // (heldSeconds set, its payout not sent yet: a loaded run's release pass may have run) says no releaseBy.
        if (privacy.releasedWith === null && privacy.heldSeconds === null) {
          const by = Date.parse(privacy.releaseBy);
          assert.ok(by > readAt - 1000 && by <= first[i]!.confirmedAt + BUDGET_S * 1000 + 50, `releaseBy ${privacy.releaseBy}: within the budget of its confirmation`);
        }
      }
    }
    const third = await depositAndConfirm(cls[2]!);
    const deposits = [...first, third];
    await Promise.all(cls.map((o, i) => completed(o, deposits[i]!, 30_000)));
    // releasedWith is counted once the whole release has landed (issue 54).
    const recs = await Promise.all(cls.map((o) => waitForReleasedWith(acct.client, o.placed.trackingId, 15_000)));
    for (const [i, rec] of recs.entries()) {
      // Released when the third arrived, unless the cap came first (a slow run): never before either.
      const earliest = Math.min(third.confirmedAt, deposits[i]!.confirmedAt + HOLD_S * 1000);
      assert.ok(at(rec, 'sending') >= earliest - 50, `${o(i)} sent before its class was released`);
      assert.equal(rec.privacy.standard, true);
      assert.equal(rec.privacy.releaseBy, null, 'released: no longer waiting');
      assert.ok(rec.privacy.heldSeconds >= 0 && rec.privacy.heldSeconds <= BUDGET_S, `held ${rec.privacy.heldSeconds} s, within the budget`);
    }
    // Each says the burst its payout landed in, as an outside reader counts it from the chain (issue 54): one
    // release of three lands as one burst; a slow run (the first two at their hold, or passes so late that the
    // payouts went at their fallback times, each a release of its own) lands in smaller ones.
    const landed = new Map<string, bigint>();
    for (const rec of recs) landed.set(rec.trackingId, (await fetchLanded(chain, rec.payouts[0].signature)).slot);
    const bursts = chainBursts(landed, benchSpanSlots(400, 50));
    const { rows: stamps } = await t.db.query<{ at: string }>('SELECT DISTINCT class_released_at::text AS at FROM orders WHERE tracking_id = ANY($1)', [recs.map((r) => r.trackingId)]);
    for (const rec of recs) {
      const what = `${rec.trackingId}: released with what the chain shows (slots ${[...landed.values()]}; ${stamps.length} release(s))`;
      // One release is counted once all of it has landed: exactly the chain's burst. Separate releases are each
      // counted when their own has landed, so one may say less than a burst another completed later, never more.
      if (stamps.length === 1) assert.equal(rec.privacy.releasedWith, bursts.get(rec.trackingId), what);
      else assert.ok(rec.privacy.releasedWith >= 1 && rec.privacy.releasedWith <= bursts.get(rec.trackingId)!, what);
    }
    t2.diagnostic(`releasedWith ${recs.map((r) => r.privacy.releasedWith).sort()}`);
    // The lone deposit of its class is released at the end of its hold, alone.
    await completed(lone, loneDeposit, 40_000);
    const loneRec = await waitForReleasedWith(acct.client, lone.placed.trackingId, 15_000);
    assert.ok(at(loneRec, 'sending') >= loneDeposit.confirmedAt + HOLD_S * 1000 - 50, 'a class below k waits to the end of its hold');
    assert.equal(loneRec.privacy.releasedWith, 1);
    assert.ok(loneRec.privacy.heldSeconds >= Math.floor(HOLD_S) && loneRec.privacy.heldSeconds <= BUDGET_S, `held ${loneRec.privacy.heldSeconds} s`);
    function o(i: number) {
      return cls[i]!.placed.trackingId;
    }
  });
});
