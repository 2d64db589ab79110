/**
 * docs/operations.md "Rotate the treasury seed": Hush restarted with a new TREASURY_SEED and the old one in
 * TREASURY_RETIRED_SEEDS. An order placed before the rotation still completes (its deposit owner is the old seed's),
 * every wallet of the old seed is drained into the new one's (pools, their token accounts closed, and last the fee
 * payer), and nothing is stranded: checked from the chain (each old wallet and account holds nothing) and from the
 * partner API, with reconcile clean over both seeds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { getOrderByTrackingId } from '../../src/store/orders-store.ts';
import { readRetiredWallets, readTreasuryWallets } from '../../src/store/treasury-wallets-store.ts';
import { MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { placeUsdc } from '../support/sim-privacy.ts';
import { cleanReconcile } from '../support/sim-screening.ts';

const ENV = { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_PRIVACY_MAX_WAIT_S: '60' };

describe('treasury seed rotation', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 87, env: ENV });
    acct = await h.createAccount({ feeCapBps: 0, feeRecipients: 0 });
  });
  after(() => closeSim(h));

  test('a new seed takes over, an order placed before completes, and every wallet of the old seed is drained: nothing stranded', async () => {
    const paid = await placeUsdc(h, acct, '1000000');
    await h.deposit(paid.order, paid.sender);
    await h.waitForOrder(acct.client, paid.trackingId, ['completed'], 300_000);
    const waiting = await placeUsdc(h, acct, '2000000');
    const old = await readTreasuryWallets(h.db);
    const oldFeePayer = old.find((w) => w.role === 'feepayer')!.address;
    assert.ok((await h.chain.lamports(oldFeePayer)) > 0n && (await h.chain.tokens(old.find((w) => w.assetId === 'usdc')!.holding)) >= 0n);

    await h.restartWith({ TREASURY_SEED: randomBytes(32).toString('hex'), TREASURY_RETIRED_SEEDS: h.config.treasurySeed! });
    const current = await readTreasuryWallets(h.db);
    assert.notEqual(current.find((w) => w.role === 'feepayer')!.address, oldFeePayer, 'the new seed took over');
    const retired = await readRetiredWallets(h.db);
    assert.deepEqual(retired.map((w) => w.holding).sort(), old.map((w) => w.holding).sort(), 'every wallet of the old seed is retired, none forgotten');

    // The order placed before the rotation: its deposit account is the old seed's, and it completes from the new pools.
    await h.deposit(waiting.order, waiting.sender);
    const done = await h.waitForOrder(acct.client, waiting.trackingId, ['completed'], 300_000);
    assert.equal(await h.chain.tokens(associatedTokenAddress(waiting.recipient, MINTS.usdc as Address, TOKEN_PROGRAM)), waiting.amountOut, 'its recipient is paid, once');
    const newPools = new Set(current.filter((w) => w.role === 'pool').map((w) => w.holding as string));
    assert.equal(done.payouts.length, 1);

    await h.until('every retired wallet drained', async () => (await readRetiredWallets(h.db)).every((w) => w.drainedAt !== null), 600_000, 1_000);
    for (const w of old) {
      assert.equal(await h.chain.lamports(w.holding), 0n, `${w.role} ${w.assetId}/${w.index}: ${w.holding} holds nothing (a token account is closed, its rent back)`);
      assert.equal(await h.chain.lamports(w.address), 0n, `${w.role} ${w.assetId}/${w.index}: its wallet ${w.address} holds nothing`);
    }
    const rec = (await getOrderByTrackingId(h.db, waiting.trackingId))!;
    // Swept (signed by the old seed's deposit owner) and closed once its deposit transaction can no longer land.
    await h.until("the old seed's deposit account swept and closed", async () => (await h.chain.lamports(rec.depositAccount)) === 0n, 900_000, 1_000);
    assert.ok(newPools.size > 0);
    const report = await cleanReconcile(h, 120_000);
    assert.equal(report.ok, true, 'reconcile counts both seeds and agrees with the chain');
    const status = expectOk(await acct.client.status(paid.trackingId)).order;
    assert.equal(status.status, 'completed', 'an order of before the rotation still answers');
  });
});
