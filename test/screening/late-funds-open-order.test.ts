/**
 * Issue 49, finding 2's last case, end to end on a simulated Hush (test/support/sim-hush.ts; docs/spec.md §12:
 * funds that reach a deposit account outside its order are screened like a deposit): a listed wallet tops up
 * the deposit account of an order that is still OPEN — its deposit confirmed, its payout waiting for its class
 * (a private 10 USDC whose quote asked for `privacy: { minAnonymitySet: 2 }`; nothing else of that class until
 * the test places it). Once before the deposit's sweep (swept with it, held while the order is open) and once
 * after it (held when the order is final). Nothing moves to or from the listed wallet, the recipient gets
 * exactly its amountOut, both holds are listed with the order, reconcile stays ok with them on
 * `held:screening`, and the order completes on its own deposit when its class is released (a second member
 * arrives). And an order still awaiting its deposit: the listed wallet's funds (exactly amountIn) are no deposit
 * of it; it expires (`deposit_account_taken`) and they are held with it. On the code before issue 49 both fail:
 * the listed wallet's funds were refunded to the order's sender. Sweeps and late-deposit passes run when the
 * test says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { closeSim } from '../support/sim-close.ts';
import { SOL, startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { assertPaidOnce } from '../support/settlement-landed.ts';
import type { PlacedOrder } from '../support/settlement-chain.ts';
import { ScreeningList, holdQueue, lateTick, place, sendSigned, statusOf, sweep, usdcLedger, usdcOf, usdcTopUpIxs } from '../support/sim-screening.ts';

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe('late funds from a listed wallet into an open order', () => {
  const list = new ScreeningList('blocked.txt', '# listed during the test\n');
  let h: SimHush;
  let acct: SimAccount;

  before(async () => {
    h = await startSimHush({
      seed: 50,
      env: {
        ...list.env(1_000),
        // The list file only, as the real-process harness ran it (no risk API).
        HUSH_SCREENING_URL: '',
        HUSH_SWEEP_INTERVAL_S: '3600',
        // The class is released by the second member's deposit; its payouts follow within a second.
        HUSH_PAYOUT_DELAY_S: '0.2-0.6',
        // An order awaiting its deposit ends within seconds once its account is taken (the second test).
        HUSH_ORDER_TTL_S: '8',
      },
    });
    acct = await h.createAccount();
  });
  after(async () => {
    await closeSim(h);
    list.remove();
  });

  const worker = () => h.hush.worker!;
  const funded = () => h.wallet({ sol: SOL, usdc: USDC(100) });
  const lateHolds = async (trackingId: string) => (await holdQueue(h)).fundHolds.filter((x) => x.kind === 'late' && x.trackingId === trackingId);
  const status = async (trackingId: string) => (await statusOf(acct.client, trackingId)).status;
  /** `from` sends `amount` USDC to a deposit account (creating it again if its sweep closed it). */
  const send = (from: SimWallet, o: PlacedOrder, amount: bigint) => sendSigned(h, from, usdcTopUpIxs(from, { owner: o.depositOwner, account: o.depositAccount }, amount));
  /**
   * A late-deposit pass, then a late hold of this order not among `known`; meanwhile (on code before issue 49,
   * the extra was refunded unscreened) the listed funds must not have gone on to the order's sender.
   */
  const heldFor = (trackingId: string, known: string[]) => async () => {
    await worker().lateDepositTick();
    const found = (await lateHolds(trackingId)).find((x) => !known.includes(x.holdId));
    if (found) return found;
    const { rows } = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'refund'`, [trackingId]);
    assert.equal(rows[0]!.n, 0, 'the listed wallet\'s funds were refunded to the order\'s sender without screening');
    return null;
  };
  /** A private 10 USDC order that asked for a set of two, deposited: open until its class has two members. */
  const privateOrder = async () => {
    const sender = await funded();
    const recipient = h.address();
    const placed = await place(h, acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: recipient, privacy: { minAnonymitySet: 2 } });
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['deposit_confirmed', 'sending', 'completed'], 30_000);
    return { placed, sender, recipient };
  };

  test('a listed wallet tops up an open order before and after its sweep: held with the order, nothing moves to or from it, the order completes on its own deposit', async () => {
    const { placed, sender, recipient } = await privateOrder();
    assert.equal(await status(placed.trackingId), 'deposit_confirmed', 'open: waiting for its class');
    const listedWallet = await funded();
    await list.block(h, listedWallet.address);
    const senderAfterDeposit = (await usdcOf(h, sender.address))!;

    // 1. Before the sweep: the sweep takes the deposit and the extra; the extra is held, the order still open.
    await send(listedWallet, placed, USDC(3));
    await sweep(h, placed.trackingId);
    const first = await h.until('the extra held', heldFor(placed.trackingId, []), 20_000, 300);
    assert.deepEqual([first.amount, first.decision.stage, first.decision.field, first.decision.address], ['3000000', 'late', 'lateFundsPayer', listedWallet.address]);
    assert.equal(await status(placed.trackingId), 'deposit_confirmed', 'the order is still open, on its own deposit');
    assert.equal(await usdcLedger(h, 'held'), '3000000', 'the extra is on the held ledger account');

    // 2. After the sweep, still open: the funds wait in the account (no pass takes an open order's account).
    await send(listedWallet, placed, USDC(2));
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal((await lateHolds(placed.trackingId)).length, 1);
    assert.equal(await usdcOf(h, placed.depositOwner), USDC(2), 'untouched while the order is open');

    // 3. The class's second member releases it: the order is paid its own amountOut, once, and nothing more.
    const companion = await privateOrder();
    // releasedWith is counted where the release landed, once all of it has (docs/spec.md §9): wait for it.
    const done = await h.until(`${placed.trackingId} completed with releasedWith counted`, async () => {
      const rec = await statusOf(acct.client, placed.trackingId);
      if (rec.final && rec.status !== 'completed') throw new Error(`${placed.trackingId} ended ${rec.status}`);
      return rec.status === 'completed' && rec.privacy.releasedWith !== null ? rec : null;
    }, 60_000, 500);
    await h.waitForOrder(acct.client, companion.placed.trackingId, ['completed'], 30_000);
    assert.equal(done.privacy.releasedWith, 2, 'released with its class');
    await assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut);
    assert.equal(await usdcOf(h, recipient), placed.amountOut, 'the recipient gets its order\'s amountOut, none of the extra');

    // 4. Now final: the second top-up is screened like the first, held with the order.
    const second = await h.until('the second top-up held', heldFor(placed.trackingId, [first.holdId]), 30_000, 300);
    assert.deepEqual([second.amount, second.decision.field, second.decision.address], ['2000000', 'lateFundsPayer', listedWallet.address]);
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal(await usdcOf(h, listedWallet.address), USDC(95), 'the listed wallet got nothing back');
    assert.equal(await usdcOf(h, sender.address), senderAfterDeposit, 'nothing went to the order\'s sender');
    assert.equal(await usdcOf(h, recipient), placed.amountOut, 'nor to its recipient');
    assert.equal(await usdcLedger(h, 'held'), '5000000', 'both held apart on the ledger');
  });

  test('a listed wallet sends to the deposit account of an order awaiting its deposit: no deposit of the order, held with it once it ends', async () => {
    const sender = await funded();
    const placed = await place(h, acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });
    const listedWallet = await funded();
    await list.block(h, listedWallet.address);
    // Exactly the order's amountIn, from someone else: not its deposit (docs/spec.md §5, "Whose deposit").
    await send(listedWallet, placed, placed.amountIn);
    // It ends once its transaction cannot land any more: its blockhash's 150 slots, a minute of 400 ms slots.
    const ended = await h.waitForOrder(acct.client, placed.trackingId, ['expired', 'deposit_confirmed', 'completed', 'refunding', 'refunded', 'held'], 180_000);
    assert.deepEqual([ended.status, ended.failureReason, ended.deposit], ['expired', 'deposit_account_taken', null]);
    const held = await h.until('the funds held', heldFor(placed.trackingId, []), 180_000, 300);
    assert.deepEqual([held.amount, held.decision.field, held.decision.address], [placed.amountIn.toString(), 'lateFundsPayer', listedWallet.address]);
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal(await usdcOf(h, listedWallet.address), USDC(100) - placed.amountIn, 'the listed wallet got nothing back');
    assert.equal(await usdcOf(h, sender.address), USDC(100), 'nor did the order\'s sender');
    assert.equal(await usdcLedger(h, 'held'), (5_000_000n + placed.amountIn).toString(), 'held apart on the ledger, beside the first test\'s');
  });
});
