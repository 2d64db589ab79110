/**
 * Issue 49, end to end on the local chain (docs/spec.md §12): funds that reach a deposit account outside its
 * order are screened like a deposit — a listed wallet's late funds, or late funds of a sender listed after
 * its order completed, are never refunded automatically: they are held on a ledger account of their own,
 * listed with the order they reached, and the operator freezes them; a listed partner fee recipient is not
 * paid (its fees keep accruing) until the operator releases it; funds whose payers the history read cannot
 * show (pushed out of it) are held too. Reconcile stays ok throughout. Sweeps,
 * late-deposit passes and partner payouts run when a test says so.
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, makeTempDir, pollUntil, waitForStatus } from '../support/localnet.ts';
import { ASSETS, SOL, ataOf, balanceOf, chainAt, depositWithRefresh, newWallet, waitForCleanReconcile, waitForOrder, type Chain } from '../support/settlement.ts';

describe('late funds and partner fees are screened', () => {
  const dir = makeTempDir('hush-late-funds-');
  const list = join(dir, 'blocked.txt');
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let admin: TestHush['ops'];

  before(async () => {
    writeFileSync(list, '# listed during the tests\n');
    hush = await startTestHush({
      admin: true,
      env: {
        HUSH_SCREENING_LISTS: list,
        HUSH_SCREENING_RELOAD_MS: '100',
        HUSH_SWEEP_INTERVAL_S: '3600',
        HUSH_PARTNER_PAYOUT_INTERVAL_S: '3600',
        LOCALNET_SLOT_MS: '50',
      },
    });
    acct = await hush.createAccount({ feeCapBps: 200 });
    chain = chainAt(hush.chainUrl);
    admin = hush.ops.withKey(hush.adminToken!);
  });
  after(async () => hush?.close());

  let listed = 0;
  const block = async (address: string) => {
    appendFileSync(list, `${address}\n`);
    listed += 1;
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes(`(${listed})`), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
  };
  const worker = () => hush.hush.worker!;
  const funded = () => newWallet(chain, { sol: SOL, tokens: { usdc: 100_000_000n } });
  const holds = async () => (expectOk(await admin.get('/admin/v1/holds')) as unknown as { fundHolds: any[] }).fundHolds;

  /** A completed 10 USDC order (optionally with a partner fee), and its deposit account and owner. */
  const completedOrder = async (sender: KeyPairSigner, fee?: { feeBps: number; feeRecipientAddress: Address }) => {
    const req = { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address, ...fee };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
    const order = expectOk(await acct.client.order({ quote, ...terms })).order;
    await depositWithRefresh(acct.client, chain, { order, trackingId: order.trackingId } as never, sender);
    await waitForOrder(acct.client, order.trackingId, ['completed'], 30_000);
    const { rows } = await hush.db.query<{ deposit_owner: Address; deposit_account: Address }>('SELECT deposit_owner, deposit_account FROM orders WHERE tracking_id = $1', [order.trackingId]);
    return { trackingId: order.trackingId as string, networkFee: BigInt(quote.networkFee), owner: rows[0]!.deposit_owner, depositAccount: rows[0]!.deposit_account };
  };
  const sweep = (trackingId: string) =>
    pollUntil(async () => (await hush.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [trackingId])).rows[0]?.swept || ((await worker().sweepTick()) >= 0 && null), {
      timeoutMs: 20_000,
      intervalMs: 200,
      what: 'the sweep of the deposit',
    });
  /** `from` sends `amount` USDC to a deposit account (creating it if it was closed). */
  const send = async (from: KeyPairSigner, o: { owner: Address; depositAccount: Address }, amount: bigint) => {
    const ixs = [
      getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: o.depositAccount, owner: o.owner, mint: ASSETS.usdc.mint }),
      getTransferCheckedInstruction({ source: await ataOf(from.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: o.depositAccount, authority: from, amount, decimals: ASSETS.usdc.decimals }),
    ];
    const { wire } = await buildSignedTransaction(from, ixs, await latestBlockhash(chain.rpc));
    await waitForStatus(chain.rpc, await chain.rpc.sendTransaction(wire, { encoding: 'base64' }).send(), 'confirmed');
  };
  /** A completed, swept order whose deposit account a listed wallet then sends `amount` (the sender listed too when asked); the sender's balance before. */
  const listedLateFunds = async (amount: bigint, opts: { listSender?: boolean } = {}) => {
    const sender = await funded();
    const o = await completedOrder(sender);
    await sweep(o.trackingId);
    const listedWallet = await funded();
    await block(listedWallet.address);
    if (opts.listSender) await block(sender.address);
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    await send(listedWallet, o, amount);
    return { sender, o, listedWallet, before };
  };
  /** Late-deposit passes until a hold of late funds lists this order (or, on old code, the refund went out). */
  const lateHold = (trackingId: string, sender: Address, before: bigint) =>
    pollUntil(
      async () => {
        await worker().lateDepositTick();
        const h = (await holds()).find((x) => x.kind === 'late' && x.trackingId === trackingId);
        if (h) return h;
        assert.equal(await balanceOf(chain, sender, ASSETS.usdc), before, 'the late funds were refunded without screening');
        return null;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the late funds held' },
    );

  test('a listed wallet sends to a completed order\'s swept deposit account: held on held:screening, listed with the order, frozen by the operator', async () => {
    const { sender, o, listedWallet, before } = await listedLateFunds(10_000_000n);
    const h = await lateHold(o.trackingId, sender.address, before);
    assert.equal(h.amount, '10000000');
    assert.equal(h.decision.field, 'lateFundsPayer');
    assert.equal(h.decision.address, listedWallet.address);
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), before, 'nothing went to the order\'s sender');
    const report = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    assert.equal(report.assets.find((a: { assetId: string }) => a.assetId === 'usdc').held, '10000000', 'held apart on the ledger');
    expectOk(await admin.request('POST', `/admin/v1/holds/${h.holdId}/resolve`, { body: { action: 'freeze', note: 'sanctioned wallet', operator: 'alice' } }));
    const frozen = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    assert.equal(frozen.assets.find((a: { assetId: string }) => a.assetId === 'usdc').held, '0');
  });

  test('a listed wallet adds funds beside a deposit before its sweep: the order is paid on its own deposit, the rest held; refunded to the sender once the operator says so', async () => {
    const sender = await funded();
    const o = await completedOrder(sender);
    const listedWallet = await funded();
    await block(listedWallet.address);
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    await send(listedWallet, o, 5_000_000n);
    await sweep(o.trackingId);
    const h = await lateHold(o.trackingId, sender.address, before);
    assert.equal(`${h.amount}:${h.decision.address}`, `5000000:${listedWallet.address}`);
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    // The operator chooses the refund (the order's sender is not listed): it goes to that sender, less the
    // order's network fee, and the held booking is reversed with it (refundReleasedLateFunds).
    expectOk(await admin.request('POST', `/admin/v1/holds/${h.holdId}/resolve`, { body: { action: 'refund', note: 'returned to the sender', operator: 'alice' } }));
    const refunded = before + 5_000_000n - o.networkFee;
    await pollUntil(async () => (await worker().lateDepositTick(), (await balanceOf(chain, sender.address, ASSETS.usdc)) === refunded || null), {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'the released late funds refunded to the sender',
    });
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), refunded, 'refunded once');
    assert.equal((await holds()).find((x) => x.holdId === h.holdId), undefined, 'no longer listed as held');
    const report = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    assert.equal(report.assets.find((a: { assetId: string }) => a.assetId === 'usdc').held, '0', 'nothing held on the ledger');
  });

  test('a sender listed after its order completed tops up its old deposit account: nothing goes back to it', async () => {
    const sender = await funded();
    const o = await completedOrder(sender);
    await sweep(o.trackingId);
    await block(sender.address);
    await send(sender, o, 7_000_000n);
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    const h = await lateHold(o.trackingId, sender.address, before);
    assert.equal(h.decision.field, 'senderAddress');
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });

  test('a listed wallet that pushes its transfer out of the history read with empty ones is held all the same: the payers are not known', async () => {
    const { sender, o, before } = await listedLateFunds(6_000_000n);
    // Twenty empty transfers after it (a cent of fees): the account's last twenty transactions name no payer.
    const spammer = await funded();
    const empty = getTransferCheckedInstruction({ source: await ataOf(spammer.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: o.depositAccount, authority: spammer, amount: 0n, decimals: ASSETS.usdc.decimals });
    for (let i = 0; i < 20; i++) {
      const { wire } = await buildSignedTransaction(spammer, [empty, getTransferSolInstruction({ source: spammer, destination: spammer.address, amount: BigInt(i) })], await latestBlockhash(chain.rpc));
      await waitForStatus(chain.rpc, await chain.rpc.sendTransaction(wire, { encoding: 'base64' }).send(), 'confirmed');
    }
    const h = await lateHold(o.trackingId, sender.address, before);
    assert.equal(`${h.amount}:${h.decision.field}:${h.decision.address}`, `6000000:lateFundsPayer:${o.depositAccount}`);
    assert.match(h.decision.reason, /not every payer can be read/);
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), before, 'nothing went to the order\'s sender');
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });

  test('a release covers the finding it resolved: late funds of a listed payer to a listed sender, the sender released, are held again on the payer', async () => {
    const { sender, o, listedWallet, before } = await listedLateFunds(4_000_000n, { listSender: true });
    const h = await lateHold(o.trackingId, sender.address, before);
    // The hold shows one finding: the sender's (blocked, and first).
    assert.equal(`${h.decision.field}:${h.decision.address}`, `senderAddress:${sender.address}`);
    expectOk(await admin.request('POST', `/admin/v1/holds/${h.holdId}/resolve`, { body: { action: 'release', note: 'the sender is a namesake', operator: 'alice' } }));
    const again = await pollUntil(
      async () => {
        await worker().lateDepositTick();
        assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), before, "the listed payer's funds went to the sender on a release of the sender's finding");
        return (await holds()).find((x) => x.holdId === h.holdId) ?? null;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the hold back on the payer' },
    );
    assert.equal(`${again.status}:${again.decision.field}:${again.decision.address}`, `held:lateFundsPayer:${listedWallet.address}`);
    expectOk(await admin.request('POST', `/admin/v1/holds/${h.holdId}/resolve`, { body: { action: 'freeze', note: 'sanctioned payer', operator: 'alice' } }));
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });

  test('a fee recipient listed after its orders is not paid; its fees keep accruing until the operator releases it', async () => {
    const feeRecipient = acct.feeRecipients[0]!;
    await completedOrder(await funded(), { feeBps: 150, feeRecipientAddress: feeRecipient });
    await block(feeRecipient);
    const payouts = async () => (await hush.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'partner_payout' AND destination = $1`, [feeRecipient])).rows.length;
    for (let i = 0; i < 2; i++) await worker().partnerTick();
    assert.equal(await payouts(), 0, 'nothing paid to a listed fee recipient');
    const h = (await holds()).find((x) => x.kind === 'fee' && x.subject.endsWith(feeRecipient));
    assert.ok(h, 'the hold is listed for the operator');
    assert.equal(h.decision.stage, 'fee');
    expectOk(await admin.request('POST', `/admin/v1/holds/${h.holdId}/resolve`, { body: { action: 'release', note: 'a different entity', operator: 'alice' } }));
    await worker().partnerTick();
    assert.equal(await payouts(), 1, 'paid once released');
  });
});
