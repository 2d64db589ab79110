/**
 * Issue 49, end to end on a simulated Hush (test/support/sim-hush.ts; docs/spec.md §12): funds that reach a
 * deposit account outside its order are screened like a deposit — a listed wallet's late funds, or late funds of
 * a sender listed after its order completed, are never refunded automatically: they are held on a ledger
 * account of their own, listed with the order they reached, and the operator freezes them; a listed partner fee
 * recipient is not paid (its fees keep accruing) until the operator releases it; funds whose payers the history
 * read cannot show (pushed out of it) are held too. Reconcile stays ok throughout. Sweeps, late-deposit passes
 * and partner payouts run when a test says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, USDC, startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import {
  MINTS, ScreeningList, cleanReconcile, holdQueue, lateTick, resolveHold, sendSigned, signerOf, solTransferIxs, sweep, usdcAccount, usdcLedger, usdcOf, usdcTopUpIxs,
} from '../support/sim-screening.ts';

describe('late funds and partner fees are screened', () => {
  const list = new ScreeningList();
  let h: SimHush;
  let acct: SimAccount;

  before(async () => {
    h = await startSimHush({
      seed: 49,
      // The list file only, as the real-process harness ran it (no risk API).
      env: { ...list.env(1_000), HUSH_SCREENING_URL: '', HUSH_SWEEP_INTERVAL_S: '3600', HUSH_PARTNER_PAYOUT_INTERVAL_S: '3600' },
    });
    acct = await h.createAccount({ feeCapBps: 200 });
  });
  after(async () => {
    await closeSim(h);
    list.remove();
  });

  const worker = () => h.hush.worker!;
  const funded = () => h.wallet({ sol: SOL, usdc: 100n * USDC });
  const lateHolds = async () => (await holdQueue(h)).fundHolds;

  /** A completed 20 USDC order (optionally with a partner fee), and its deposit account and owner. */
  const completedOrder = async (sender: SimWallet, fee?: { feeBps: number; feeRecipientAddress: Address }) => {
    const req = { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: h.address(), ...fee };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
    const order = expectOk(await acct.client.order({ quote, ...terms })).order;
    await h.deposit(order, sender);
    await h.waitForOrder(acct.client, order.trackingId, ['completed']);
    const { rows } = await h.db.query<{ deposit_owner: Address; deposit_account: Address }>('SELECT deposit_owner, deposit_account FROM orders WHERE tracking_id = $1', [order.trackingId]);
    return { trackingId: order.trackingId as string, networkFee: BigInt(quote.networkFee), owner: rows[0]!.deposit_owner, depositAccount: rows[0]!.deposit_account };
  };
  /** `from` sends `amount` USDC to a deposit account (creating it if it was closed). */
  const send = (from: SimWallet, o: { owner: Address; depositAccount: Address }, amount: bigint) => sendSigned(h, from, usdcTopUpIxs(from, { owner: o.owner, account: o.depositAccount }, amount));
  /** A completed, swept order whose deposit account a listed wallet then sends `amount` (the sender listed too when asked); the sender's balance before. */
  const listedLateFunds = async (amount: bigint, opts: { listSender?: boolean } = {}) => {
    const sender = await funded();
    const o = await completedOrder(sender);
    await sweep(h, o.trackingId);
    const listedWallet = await funded();
    await list.block(h, listedWallet.address);
    if (opts.listSender) await list.block(h, sender.address);
    const before = (await usdcOf(h, sender.address))!;
    await send(listedWallet, o, amount);
    return { sender, o, listedWallet, before };
  };
  /** Late-deposit passes until a hold of late funds lists this order (or, on old code, the refund went out). */
  const lateHold = (trackingId: string, sender: string, before: bigint) =>
    h.until('the late funds held', async () => {
      await worker().lateDepositTick();
      const found = (await lateHolds()).find((x) => x.kind === 'late' && x.trackingId === trackingId);
      if (found) return found;
      assert.equal(await h.chain.tokens(usdcAccount(sender)), before, 'the late funds were refunded without screening');
      return null;
    }, 30_000, 500);

  test('a listed wallet sends to a completed order\'s swept deposit account: held on held:screening, listed with the order, frozen by the operator', async () => {
    const { sender, o, listedWallet, before } = await listedLateFunds(10_000_000n);
    const held = await lateHold(o.trackingId, sender.address, before);
    assert.equal(held.amount, '10000000');
    assert.equal(held.decision.field, 'lateFundsPayer');
    assert.equal(held.decision.address, listedWallet.address);
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal(await usdcOf(h, sender.address), before, 'nothing went to the order\'s sender');
    assert.equal(await usdcLedger(h, 'held'), '10000000', 'held apart on the ledger');
    expectOk(await resolveHold(h, held.holdId, 'freeze', 'sanctioned wallet'));
    assert.equal(await usdcLedger(h, 'held'), '0');
  });

  test('a listed wallet adds funds beside a deposit before its sweep: the order is paid on its own deposit, the rest held; refunded to the sender once the operator says so', async () => {
    const sender = await funded();
    const o = await completedOrder(sender);
    const listedWallet = await funded();
    await list.block(h, listedWallet.address);
    const before = (await usdcOf(h, sender.address))!;
    await send(listedWallet, o, 5_000_000n);
    await sweep(h, o.trackingId);
    const held = await lateHold(o.trackingId, sender.address, before);
    assert.equal(`${held.amount}:${held.decision.address}`, `5000000:${listedWallet.address}`);
    await cleanReconcile(h);
    // The operator chooses the refund (the order's sender is not listed): it goes to that sender, less the
    // order's network fee, and the held booking is reversed with it (refundReleasedLateFunds).
    expectOk(await resolveHold(h, held.holdId, 'refund', 'returned to the sender'));
    const refunded = before + 5_000_000n - o.networkFee;
    await h.until('the released late funds refunded to the sender', async () => (await worker().lateDepositTick(), (await h.chain.tokens(usdcAccount(sender.address))) === refunded || null), 30_000, 500);
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal(await usdcOf(h, sender.address), refunded, 'refunded once');
    assert.equal((await lateHolds()).find((x) => x.holdId === held.holdId), undefined, 'no longer listed as held');
    assert.equal(await usdcLedger(h, 'held'), '0', 'nothing held on the ledger');
  });

  test('a sender listed after its order completed tops up its old deposit account: nothing goes back to it', async () => {
    const sender = await funded();
    const o = await completedOrder(sender);
    await sweep(h, o.trackingId);
    await list.block(h, sender.address);
    await send(sender, o, 7_000_000n);
    const before = (await usdcOf(h, sender.address))!;
    const held = await lateHold(o.trackingId, sender.address, before);
    assert.equal(held.decision.field, 'senderAddress');
    await cleanReconcile(h);
  });

  test('a listed wallet that pushes its transfer out of the history read with empty ones is held all the same: the payers are not known', async () => {
    const { sender, o, before } = await listedLateFunds(6_000_000n);
    // Twenty empty transfers after it (a cent of fees): the account's last twenty transactions name no payer.
    const spammer = await funded();
    const empty = getTransferCheckedInstruction({ source: usdcAccount(spammer.address), mint: MINTS.usdc as Address, destination: o.depositAccount, authority: signerOf(spammer.address), amount: 0n, decimals: 6 });
    for (let i = 0; i < 20; i++) await sendSigned(h, spammer, [empty, ...solTransferIxs(spammer, spammer.address, BigInt(i))]);
    const held = await lateHold(o.trackingId, sender.address, before);
    assert.equal(`${held.amount}:${held.decision.field}:${held.decision.address}`, `6000000:lateFundsPayer:${o.depositAccount}`);
    assert.match(held.decision.reason, /not every payer can be read/);
    for (let i = 0; i < 2; i++) await lateTick(h);
    assert.equal(await usdcOf(h, sender.address), before, 'nothing went to the order\'s sender');
    await cleanReconcile(h);
  });

  test('a release covers the finding it resolved: late funds of a listed payer to a listed sender, the sender released, are held again on the payer', async () => {
    const { sender, o, listedWallet, before } = await listedLateFunds(4_000_000n, { listSender: true });
    const held = await lateHold(o.trackingId, sender.address, before);
    // The hold shows one finding: the sender's (blocked, and first).
    assert.equal(`${held.decision.field}:${held.decision.address}`, `senderAddress:${sender.address}`);
    expectOk(await resolveHold(h, held.holdId, 'release', 'the sender is a namesake'));
    const again = await h.until('the hold back on the payer', async () => {
      await worker().lateDepositTick();
      assert.equal(await h.chain.tokens(usdcAccount(sender.address)), before, "the listed payer's funds went to the sender on a release of the sender's finding");
      return (await lateHolds()).find((x) => x.holdId === held.holdId) ?? null;
    }, 30_000, 500);
    assert.equal(`${again.status}:${again.decision.field}:${again.decision.address}`, `held:lateFundsPayer:${listedWallet.address}`);
    expectOk(await resolveHold(h, held.holdId, 'freeze', 'sanctioned payer'));
    await cleanReconcile(h);
  });

  test('a fee recipient listed after its orders is not paid; its fees keep accruing until the operator releases it', async () => {
    const feeRecipient = acct.feeRecipients[0]!;
    await completedOrder(await funded(), { feeBps: 150, feeRecipientAddress: feeRecipient });
    await list.block(h, feeRecipient);
    const payouts = async () => (await h.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'partner_payout' AND destination = $1`, [feeRecipient])).rows.length;
    for (let i = 0; i < 2; i++) await h.drive(worker().partnerTick());
    assert.equal(await payouts(), 0, 'nothing paid to a listed fee recipient');
    const held = (await lateHolds()).find((x) => x.kind === 'fee' && x.subject.endsWith(feeRecipient));
    assert.ok(held, 'the hold is listed for the operator');
    assert.equal(held.decision.stage, 'fee');
    // The log's fee rows name the partner (they have no order to name it), so its filter finds them.
    const logged = expectOk(await h.ops.get(`/admin/v1/screening-log?stage=fee&accountId=${acct.id}`)) as unknown as { entries: { address: string; result: string; accountId: string }[] };
    assert.ok(logged.entries.some((e) => e.address === feeRecipient && e.result === 'blocked' && e.accountId === acct.id), JSON.stringify(logged.entries));
    expectOk(await resolveHold(h, held.holdId, 'release', 'a different entity'));
    await h.drive(worker().partnerTick());
    assert.equal(await payouts(), 1, 'paid once released');
  });
});
