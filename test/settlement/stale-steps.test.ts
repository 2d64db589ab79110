/**
 * A worker step that acts on an order record gone stale — here the watchdog failed the order after the
 * step read it — records nothing and pays nothing: on a simulated Hush's chain (test/support/sim-hush.ts), with
 * the running worker's transaction loop free to send whatever was recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getOrderByTrackingId } from '../../src/store/orders-store.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';
import { seededRandom } from '../../src/support/random.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush, SimWallet } from '../support/sim-hush.ts';
import { startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import { ASSETS, SOL, placeOrder } from '../support/settlement.ts';
import { moveOrder } from '../support/move-order.ts';

describe('stale worker steps', () => {
  let h: SimHush;
  let acct: SimAccount;
  let cs: SimChain;
  let sender: SimWallet;

  before(async () => {
    ({ h, acct, cs } = await startSettlementSim(19, { HUSH_SWEEP_INTERVAL_S: '3600' }));
    sender = await cs.wallet({ sol: 5n * SOL });
  });
  after(() => closeSim(h));

  test('a payout planned for an order the watchdog failed meanwhile is not recorded, and the recipient gets nothing', async () => {
    const hush = h.hush;
    const recipient = (await cs.wallet()).address;
    // A private amount whose partner asked for a set of three, alone in its class: the running worker confirms
    // the deposit and keeps the payout waiting for its class's release (an amount off the menu would be paid two
    // slots on, before the watchdog below could fail it).
    const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient as Address, privacy: { minAnonymitySet: 3 } });
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['deposit_confirmed'], 30_000);

    // Another worker's step holds this record and is about to record the payout; the watchdog fails the order first.
    const other = new SettlementWorker(hush.config, hush.db, hush.chain, hush.signing!, { clock: h.clock, random: seededRandom(19), faults: processFaultPoints(), workerId: 'stale-step', sweepIntervalMs: 3_600_000 });
    const held = (await h.drive(getOrderByTrackingId(hush.db, placed.trackingId)))!;
    assert.ok(await h.drive(moveOrder(hush.db, held.id, 'deposit_confirmed', 'failed', { failureReason: 'stuck_in_deposit_confirmed' })));
    const before = await cs.balance(recipient, ASSETS.sol);
    const r = await h.drive(other.context.payouts.record(held, 'deposit_confirmed'));
    assert.equal(r.ok, false);
    const { rows } = await h.drive(hush.db.query(`SELECT status FROM chain_txs WHERE kind = 'payout' AND order_id = $1`, [held.id]));
    assert.deepEqual(rows, [], 'no payout recorded for a failed order');
    // The running worker's transaction loop sends whatever is recorded and unsent: one pass of it now, then
    // the slots in which a payout sent now lands (the floor is two).
    await h.drive(hush.worker!.txTick());
    const sentBy = await cs.slot();
    await h.until('three slots after the pass', async () => (await cs.slot()) >= sentBy + 3n, 10_000, 100);
    assert.equal(await cs.balance(recipient, ASSETS.sol), before, 'the recipient of a failed order is not paid');
    assert.equal((await h.drive(getOrderByTrackingId(hush.db, placed.trackingId)))!.status, 'failed');
  });
});
