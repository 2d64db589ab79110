/**
 * A crash during a class release (docs/spec.md §9, §10), real processes, real chain, real store: Hush runs with
 * privacy on and k = 3 as a child process that SIGKILLs itself right after sending the second payout of
 * a class of three (HUSH_FAULT=payout-sent, HUSH_FAULT_AFTER=2); the third is released but not sent.
 * Restarted on the same DATA_DIR (privacy still on), it pays the rest without waiting for another
 * class, and every order of the class is paid exactly once, for its exact amount, each by one
 * transaction; the deposits are swept once and the ledger reconciles.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { HushClient } from '../support/hush-server.ts';
import { HIGH_RATE_LIMITS, spawnHush, waitForExit, type HushProcess } from '../support/hush-process.ts';
import { makeTempDir, removeDir } from '../support/localnet.ts';
import { sweptReconciledStopped, withCrashedStoreCopy, withStore } from '../support/crash-recovery.ts';
import { benchSpanSlots, chainBursts } from '../support/chain-bursts.ts';
import {
  ASSETS,
  SOL,
  assertHistory,
  assertPaidOnce,
  ataOf,
  balanceOf,
  chainAt,
  chainTxRows,
  depositWithRefresh,
  fetchLanded,
  jsonish,
  newWallet,
  placeOrder,
  readDemoAccount,
  successfulSignatures,
  waitForOrder,
  waitForReleasedWith,
} from '../support/settlement.ts';

const CLASS = 3;
const AMOUNT = 10_000_000n; // 10 USDC: a private amount

test('SIGKILL between the payouts of one class release: the rest are paid after the restart, each exactly once', { timeout: 300_000 }, async (t) => {
  const dataDir = makeTempDir('hush-release-crash-');
  const adminToken = randomBytes(32).toString('base64url');
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOCALNET_PORT: '0',
    LOCALNET_SLOT_MS: '100',
    
    HUSH_PRIVACY_K: String(CLASS),
    // Far beyond the run: only a full class releases these payouts.
    HUSH_PRIVACY_MAX_DELAY_S: '600',
    // The release spreads the class's payouts over 1–4 s, so the kill falls between two of them.
    HUSH_PAYOUT_DELAY_S: '1-4',
    HUSH_SWEEP_INTERVAL_S: '1',
    HUSH_ADMIN_TOKEN: adminToken,
    HUSH_RATE_LIMITS: HIGH_RATE_LIMITS,
  };
  let second: HushProcess | undefined;
  try {
    const first = await spawnHush({ ...env, HUSH_FAULT: 'payout-sent', HUSH_FAULT_AFTER: '2' }, { label: 'release crash, first life' });
    const demo = readDemoAccount(dataDir);
    let chain = chainAt(first.chainUrl);
    let client = new HushClient(first.url!, demo.apiKey);
    const orders = await Promise.all(
      Array.from({ length: CLASS }, async () => {
        const sender = await newWallet(chain, { sol: SOL, tokens: { usdc: AMOUNT } });
        const recipient = (await generateKeyPairSigner()).address;
        const placed = await placeOrder(client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient });
        assert.equal(placed.quote.privacy.standard, true);
        return { sender, recipient, placed };
      }),
    );
    await Promise.all(orders.map((o) => depositWithRefresh(client, chain, o.placed, o.sender)));

    const death = await waitForExit(first, 90_000, 'the second payout of the release');
    assert.equal(death.signal, 'SIGKILL', `killed itself after the second payout (exit ${jsonish(death)}):\n${first.output().slice(-3000)}`);

    // The crashed store, on a copy: the class was released as one, and killed part way through paying it.
    await withCrashedStoreCopy(dataDir, async (db) => {
      const ids = orders.map((o) => o.placed.trackingId);
      const { rows } = await db.query<{ status: string; released: boolean }>('SELECT status, class_released_at IS NOT NULL AS released FROM orders WHERE tracking_id = ANY($1)', [ids]);
      const paying = (await Promise.all(ids.map((id) => chainTxRows(db, id, 'payout')))).filter((r) => r.length > 0).length;
      t.diagnostic(`at the crash: ${jsonish(rows)}, ${paying} with a payout recorded`);
      assert.equal(rows.length, CLASS);
      assert.ok(rows.every((r) => r.released), 'the whole class was released at once');
      assert.ok(paying >= 2, 'two payouts sent before the kill');
      assert.ok(rows.some((r) => r.status !== 'completed'), 'killed before the class was fully paid');
    });

    second = await spawnHush(env, { label: 'release crash, second life' });
    chain = chainAt(second.chainUrl);
    client = new HushClient(second.url!, demo.apiKey);
    await Promise.all(orders.map((o) => waitForOrder(client, o.placed.trackingId, ['completed'], 90_000)));
    // releasedWith is counted once the whole release has landed (issue 54).
    const recs = await Promise.all(orders.map((o) => waitForReleasedWith(client, o.placed.trackingId, 30_000)));
    // What an outside reader counts: a restart between the payouts may land the rest past the burst span.
    const landed = new Map<string, bigint>();
    for (const [i, rec] of recs.entries()) landed.set(orders[i]!.placed.trackingId, (await fetchLanded(chain, rec.payouts[0].signature)).slot);
    const bursts = chainBursts(landed, benchSpanSlots(3000, 100));
    for (const [i, rec] of recs.entries()) {
      const { recipient, placed } = orders[i]!;
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
      assert.equal(rec.payouts.length, 1, `${placed.trackingId}: one payout transaction`);
      assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), placed.amountOut, `${placed.trackingId}: the recipient holds exactly amountOut`);
      assert.deepEqual(await successfulSignatures(chain, await ataOf(recipient, ASSETS.usdc.mint)), [rec.payouts[0].signature], `${placed.trackingId}: credited by its payout alone`);
      // Issue 54: each order says the burst its payout landed in, as the chain shows it (the whole class when the
      // restart was quick enough), never more.
      assert.equal(rec.privacy.releasedWith, bursts.get(placed.trackingId), `${placed.trackingId}: released with what the chain shows (slots ${[...landed.values()]})`);
      assert.equal(rec.privacy.releaseBy, null);
    }
    await sweptReconciledStopped(second, chain, orders.map((o) => o.placed.depositAccount), adminToken, 'release crash');
    second = undefined;

    await withStore(dataDir, async (db) => {
      for (const o of orders) await assertPaidOnce(db, o.placed.trackingId, 'payout', o.placed.amountOut);
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_txs WHERE status = 'pending'`);
      assert.equal(rows[0]!.n, 0, 'nothing left pending');
      // The release as Hush sent it survived the crash: one of the whole class.
      const sizes = await db.query<{ size: number }>('SELECT class_release_size AS size FROM orders WHERE tracking_id = ANY($1)', [orders.map((o) => o.placed.trackingId)]);
      assert.deepEqual(sizes.rows.map((r) => r.size), Array(CLASS).fill(CLASS));
    });
  } finally {
    await second?.stop('SIGKILL');
    removeDir(dataDir);
  }
});
