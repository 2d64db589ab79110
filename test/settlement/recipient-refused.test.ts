/**
 * docs/spec.md §10: a payout the chain refuses because of its recipient ends in a refund to the sender, not
 * an hour in `sending` (a sysvar recipient's payout failed on chain, was rebuilt again and again, and the order
 * waited for the watchdog with the funds held).
 *
 * End to end on a simulated Hush (test/support/sim-hush.ts: its API, worker, store and local chain on a clock
 * that runs only as the test waits). The recipient slips past the address rules the only way one can: the order
 * is placed for an ordinary wallet and its recipient is then changed in the store to the Clock sysvar (standing
 * for any account the static rules cannot know about), before the deposit. The real worker pays it; the chain
 * refuses (ReadonlyLamportChange: the runtime makes a sysvar read-only in every transaction); the order is
 * refunded at once, exactly once, deposit − networkFee.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from '@solana/kit';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';
import { cleanReconcile, startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import { SOL, assertHistory, assertPaidOnce, chainTxRows, lamportDelta, placeOrder } from '../support/settlement.ts';

const CLOCK = 'SysvarC1ock11111111111111111111111111111111';

let h: SimHush;
let acct: SimAccount;
let cs: SimChain;

before(async () => {
  ({ h, acct, cs } = await startSettlementSim(35, { HUSH_SWEEP_INTERVAL_S: '2' }));
});
after(() => closeSim(h));

test('a SOL payout the chain refuses because of its recipient (a sysvar) is refunded at once: deposit − networkFee, exactly once', async () => {
  const sender = await cs.wallet({ sol: 2n * SOL });
  const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: h.address() });
  const { rowCount } = await h.drive(h.db.query(`UPDATE orders SET recipient = $1 WHERE tracking_id = $2 AND status = 'awaiting_deposit'`, [CLOCK, placed.trackingId]));
  assert.equal(rowCount, 1);
  // Announced as every change of an order is (hush_order_changed), so the worker's deposit watch reads its
  // orders again on the next slot: two slots on, it knows the new recipient.
  await h.drive(h.db.query(`SELECT pg_notify('hush_order_changed', $1)`, [placed.trackingId]));
  const slot = await cs.slot();
  await h.until('two slots', async () => (await cs.slot()) >= slot + 2n, 10_000, 100);
  const clockLamports = await cs.lamports(CLOCK);
  const lamportsBefore = await cs.lamports(sender.address);

  const startedAt = h.now();
  const signature = await h.deposit(placed.order, sender);
  // Well inside the watchdog's hour: before, the order was still `sending` after this.
  const rec = await h.waitForOrder(acct.client, placed.trackingId, ['refunded'], 40_000);
  const tookMs = h.now() - startedAt;

  assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'refunding', 'refunded']);
  assert.equal(rec.failureReason, 'recipient_refused');
  assert.equal(rec.refund.reason, 'recipient_refused');
  assert.deepEqual(rec.payouts, [], 'nothing was paid to the recipient');
  const expectedRefund = placed.amountIn - placed.networkFee;
  assert.equal(rec.refund.amount, expectedRefund.toString(), 'refund = deposit − networkFee');

  // The payout was tried once, to the sysvar, and the chain refused it: no second attempt after the refusal.
  const payouts = await h.drive(chainTxRows(h.db, placed.trackingId, 'payout'));
  assert.equal(payouts.length, 1, `one payout attempt: ${JSON.stringify(payouts, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  assert.equal(payouts[0]!.destination, CLOCK);
  assert.equal(payouts[0]!.status, 'failed');
  const { rows } = await h.drive(h.db.query<{ err: unknown }>(`SELECT meta -> 'err' AS err FROM chain_txs WHERE id = $1`, [payouts[0]!.id]));
  assert.deepEqual(rows[0]!.err, { InstructionError: [2, 'ReadonlyLamportChange'] }, 'the chain error is kept with the failed attempt');
  const failed = await cs.landed(payouts[0]!.signature);
  assert.notEqual(failed.err, null, 'the payout landed and failed on chain');

  // Refunded exactly once, and the sender is out only the network fee and its own fee: the refund returned the
  // deposit account's rent beside the deposit.
  await h.drive(assertPaidOnce(h.db, placed.trackingId, 'refund', expectedRefund));
  const depositTx = await cs.landed(signature);
  assert.equal(lamportDelta(depositTx, placed.depositAccount) - placed.amountIn, BigInt(placed.quote.feeBreakdown.depositAccountRent));
  assert.equal(lamportsBefore - (await cs.lamports(sender.address)), placed.amountIn + depositTx.fee - expectedRefund);
  assert.equal(await cs.lamports(CLOCK), clockLamports, 'the sysvar got nothing');
  assert.ok(tookMs < 40_000, `refunded in ${tookMs} simulated ms`);

  // The books agree with the chain: the failed attempt's fee and the refund are both accounted for.
  await cleanReconcile(h, 30_000);
});
