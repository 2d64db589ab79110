/**
 * A cold crowd end to end (issue 51, docs/spec.md §9) on the local chain: on a fresh Hush, a class whose
 * members arrive together is traffic, not "no traffic" — the first of them are held for the ones still
 * arriving and the class goes out as one release — while a lone member of a class nobody else uses is
 * still not held for nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { expectOk, fundedSender, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { assertPaidOnce, chainAt, depositTogether, fetchLanded, placeOrder, waitForOrder, waitForReleasedWith, type Chain, type PlacedOrder } from '../support/settlement.ts';

const TARGET = 6;
const BUDGET_S = 30;
const HOLD_S = BUDGET_S - 0.6 - 2;

describe('a cold crowd', () => {
  let t: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  before(async () => {
    t = await startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_TARGET_SET: String(TARGET), HUSH_PRIVACY_MAX_DELAY_S: String(BUDGET_S) } });
    acct = await t.createAccount();
    chain = chainAt(t.chainUrl);
  });
  after(async () => t?.close());

  async function order(amount: string): Promise<{ placed: PlacedOrder; sender: KeyPairSigner }> {
    const sender = await fundedSender(t, { usdc: 100_000_000n });
    const recipient = (await generateKeyPairSigner()).address;
    return { placed: await placeOrder(acct.client, { amount, sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient }), sender };
  }
  const at = (rec: any, status: string): number => Date.parse(rec.history.find((h: any) => h.status === status).at);
  /**
   * Deposits that arrive together, as a crowd's do: in one slot (depositTogether), so no release pass can
   * fall between them and see the first of a crowd alone (which it rightly does not hold).
   */
  async function deposit(os: { placed: PlacedOrder; sender: KeyPairSigner }[]): Promise<{ slot: bigint; confirmedAt: number }[]> {
    const sigs = await depositTogether(acct.client, chain, os);
    return Promise.all(
      os.map(async (o, i) => {
        const rec = await waitForOrder(acct.client, o.placed.trackingId, ['deposit_confirmed', 'sending', 'completed'], 30_000);
        return { slot: (await fetchLanded(chain, sigs[i]!)).slot, confirmedAt: at(rec, 'deposit_confirmed') };
      }),
    );
  }

  test('the first of a crowd are held for the rest and the class goes as one release; a lone member of another class is not held', async () => {
    // Everything is ordered first: a fresh Hush whose only traffic is this crowd.
    const crowd = await Promise.all(Array.from({ length: TARGET }, () => order('1000000')));
    const lone = await order('10000000');
    const first = await deposit(crowd.slice(0, 3));
    // Three of the class are in, together. Before issue 51 the pass counted none of them as the class's
    // traffic (a waiting member's deposit never counted) and sent them at once as a class with no traffic:
    // a release of three, then the other three by themselves.
    await new Promise((r) => setTimeout(r, 3_000));
    for (const [i, o] of crowd.slice(0, 3).entries()) {
      const readAt = Date.now();
      const rec = expectOk(await acct.client.status(o.placed.trackingId)).order as any;
      if (readAt < first[i]!.confirmedAt + HOLD_S * 1000 - 1000) assert.equal(rec.status, 'deposit_confirmed', 'held for the crowd still arriving');
    }
    // The rest of the crowd, and the lone member of another class, at once: the crowd's orders are a few
    // seconds old, so its traffic has not gone quiet by the time its last members come.
    const later = await deposit([lone, ...crowd.slice(3)]);
    const loneDeposit = later[0]!;
    const rest = later.slice(1);
    const deposits = [...first, ...rest];
    for (const [i, o] of crowd.entries()) {
      const rec = await waitForOrder(acct.client, o.placed.trackingId, ['completed'], 60_000);
      await assertPaidOnce(t.db, o.placed.trackingId, 'payout', o.placed.amountOut);
      for (const p of rec.payouts) assert.ok((await fetchLanded(chain, p.signature)).slot >= deposits[i]!.slot + 2n, 'never the deposit\'s slot or the next');
    }
    const recs = await Promise.all(crowd.map((o) => waitForReleasedWith(acct.client, o.placed.trackingId, 20_000)));
    const sizes = recs.map((r) => r.privacy.releasedWith);
    assert.deepEqual(sizes, new Array(TARGET).fill(TARGET), `the crowd went as one release of ${TARGET}: ${sizes}`);
    // The lone member's class has no other deposit: not held for nothing.
    const loneRec = await waitForOrder(acct.client, lone.placed.trackingId, ['completed'], 30_000);
    assert.ok(at(loneRec, 'sending') - loneDeposit.confirmedAt < (HOLD_S * 1000) / 2, `the lone member held ${at(loneRec, 'sending') - loneDeposit.confirmedAt} ms`);
    assert.equal((await waitForReleasedWith(acct.client, lone.placed.trackingId, 15_000)).privacy.releasedWith, 1);
  });
});
