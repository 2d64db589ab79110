/**
 * docs/spec.md §10: a payout the chain refuses because of its recipient ends in a refund to the sender, not
 * an hour in `sending` (issue 35, finding 5: a sysvar recipient's payout failed on chain, was rebuilt again
 * and again, and the order waited for the watchdog with the funds held).
 *
 * End to end against the real app, worker and local chain. The recipient slips past the address rules the
 * only way one can: the order is placed for an ordinary wallet and its recipient is then changed in the
 * store to the Clock sysvar (standing for any account the static rules cannot know about), before the
 * deposit. The real worker pays it; the chain refuses (ReadonlyLamportChange: the runtime makes a sysvar
 * read-only in every transaction); the order is refunded at once, exactly once, deposit − networkFee.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';
import {
  SOL,
  assertHistory,
  assertPaidOnce,
  chainAt,
  chainTxRows,
  depositWithRefresh,
  fetchLanded,
  lamportDelta,
  lamportsOf,
  newWallet,
  placeOrder,
  waitForCleanReconcile,
  waitForOrder,
  type Chain,
} from '../support/settlement.ts';

const CLOCK = 'SysvarC1ock11111111111111111111111111111111';

let t: TestHush;
let acct: TestAccount;
let chain: Chain;

before(async () => {
  t = await startTestHush({ admin: true, env: { LOCALNET_SLOT_MS: '100', HUSH_SWEEP_INTERVAL_S: '2' } });
  acct = await t.createAccount();
  chain = chainAt(t.chainUrl);
});
after(async () => {
  await t?.close();
});

test('a SOL payout the chain refuses because of its recipient (a sysvar) is refunded at once: deposit − networkFee, exactly once', async () => {
  const sender = await newWallet(chain, { sol: 2n * SOL });
  const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address });
  const { rowCount } = await t.db.query(`UPDATE orders SET recipient = $1 WHERE tracking_id = $2 AND status = 'awaiting_deposit'`, [CLOCK, placed.trackingId]);
  assert.equal(rowCount, 1);
  // Announced as every change of an order is (hush_order_changed), so the worker's deposit watch reads its
  // orders again on the next slot: two slots on, it knows the new recipient.
  await t.db.query(`SELECT pg_notify('hush_order_changed', $1)`, [placed.trackingId]);
  const slot = await chain.rpc.getSlot({ commitment: 'confirmed' }).send();
  await pollUntil(async () => (await chain.rpc.getSlot({ commitment: 'confirmed' }).send()) >= slot + 2n, { what: 'two slots', timeoutMs: 10_000, intervalMs: 20 });
  const clockLamports = await lamportsOf(chain, CLOCK as never);
  const lamportsBefore = await lamportsOf(chain, sender.address);

  const startedAt = Date.now();
  const signature = await depositWithRefresh(acct.client, chain, placed, sender);
  // Well inside the watchdog's hour: before, the order was still `sending` after this.
  const rec = await waitForOrder(acct.client, placed.trackingId, ['refunded'], 40_000);
  const tookMs = Date.now() - startedAt;

  assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'refunding', 'refunded']);
  assert.equal(rec.failureReason, 'recipient_refused');
  assert.equal(rec.refund.reason, 'recipient_refused');
  assert.deepEqual(rec.payouts, [], 'nothing was paid to the recipient');
  const expectedRefund = placed.amountIn - placed.networkFee;
  assert.equal(rec.refund.amount, expectedRefund.toString(), 'refund = deposit − networkFee');

  // The payout was tried once, to the sysvar, and the chain refused it: no second attempt after the refusal.
  const payouts = await chainTxRows(t.db, placed.trackingId, 'payout');
  assert.equal(payouts.length, 1, `one payout attempt: ${JSON.stringify(payouts, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  assert.equal(payouts[0]!.destination, CLOCK);
  assert.equal(payouts[0]!.status, 'failed');
  const { rows } = await t.db.query<{ err: unknown }>(`SELECT meta -> 'err' AS err FROM chain_txs WHERE id = $1`, [payouts[0]!.id]);
  assert.deepEqual(rows[0]!.err, { InstructionError: [2, 'ReadonlyLamportChange'] }, 'the chain error is kept with the failed attempt');
  const failed = await fetchLanded(chain, payouts[0]!.signature);
  assert.notEqual(failed.err, null, 'the payout landed and failed on chain');

  // Refunded exactly once, and the sender is out only the network fee (and its own fee and deposit-account rent).
  await assertPaidOnce(t.db, placed.trackingId, 'refund', expectedRefund);
  const depositTx = await fetchLanded(chain, signature);
  const rent = lamportDelta(depositTx, placed.depositAccount) - placed.amountIn;
  assert.equal(lamportsBefore - (await lamportsOf(chain, sender.address)), placed.amountIn + depositTx.fee + rent - expectedRefund);
  assert.equal(await lamportsOf(chain, CLOCK as never), clockLamports, 'the sysvar got nothing');
  assert.ok(tookMs < 40_000, `refunded in ${tookMs} ms`);

  // The books agree with the chain: the failed attempt's fee and the refund are both accounted for.
  // The admin API: on the ops listener where the server has one (docs/spec.md §4), else on the partner port.
  await waitForCleanReconcile((t as { opsUrl?: string }).opsUrl ?? t.url, t.adminToken!, 30_000);
});
