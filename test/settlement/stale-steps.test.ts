/**
 * A worker step that acts on an order record gone stale — here the watchdog failed the order after the
 * step read it — records nothing and pays nothing: on the real chain, with the running worker's
 * transaction loop free to send whatever was recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KeyPairSigner } from '@solana/kit';
import { getOrderByTrackingId } from '../../src/store/orders-store.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { waitForSlot } from '../support/localnet.ts';
import { ASSETS, SOL, balanceOf, chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type Chain } from '../support/settlement.ts';
import { moveOrder } from '../support/move-order.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

describe('stale worker steps', () => {
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let sender: KeyPairSigner;

  before(async () => {
    hush = await startTestHush({ env: { HUSH_SWEEP_INTERVAL_S: '3600', LOCALNET_SLOT_MS: '100' } });
    acct = await hush.createAccount();
    chain = chainAt(hush.chainUrl);
    sender = await newWallet(chain, { sol: 5n * SOL });
  });
  after(async () => hush?.close());

  test('a payout planned for an order the watchdog failed meanwhile is not recorded, and the recipient gets nothing', async () => {
    const h = hush.hush;
    const recipient = (await newWallet(chain)).address;
    // A private amount whose partner asked for a set of three, alone in its class: the running worker confirms
    // the deposit and keeps the payout waiting for its class's release (an amount off the menu would be paid two
    // slots on, before the watchdog below could fail it).
    const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient, privacy: { minAnonymitySet: 3 } });
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['deposit_confirmed'], 30_000);

    // Another worker's step holds this record and is about to record the payout; the watchdog fails the order first.
    const other = new SettlementWorker(h.config, h.db, h.chain, h.signing!, { clock: systemClock, random: systemRandom, faults: processFaultPoints(), workerId: 'stale-step', sweepIntervalMs: 3_600_000 });
    const held = (await getOrderByTrackingId(h.db, placed.trackingId))!;
    assert.ok(await moveOrder(h.db, held.id, 'deposit_confirmed', 'failed', { failureReason: 'stuck_in_deposit_confirmed' }));
    const before = await balanceOf(chain, recipient, ASSETS.sol);
    const r = await other.context.payouts.record(held, 'deposit_confirmed');
    assert.equal(r.ok, false);
    const { rows } = await h.db.query(`SELECT status FROM chain_txs WHERE kind = 'payout' AND order_id = $1`, [held.id]);
    assert.deepEqual(rows, [], 'no payout recorded for a failed order');
    // The running worker's transaction loop sends whatever is recorded and unsent: one pass of it now, then
    // the slots in which a payout sent now lands (the floor is two), instead of a sleep.
    await h.worker!.txTick();
    const sentBy = await chain.rpc.getSlot({ commitment: 'confirmed' }).send();
    await waitForSlot(chain.rpc, sentBy + 3n);
    assert.equal(await balanceOf(chain, recipient, ASSETS.sol), before, 'the recipient of a failed order is not paid');
    assert.equal((await getOrderByTrackingId(h.db, placed.trackingId))!.status, 'failed');
  });
});
