/**
 * Issue 49, finding 2's last case, end to end on the local chain (docs/spec.md §12: funds that reach a deposit
 * account outside its order are screened like a deposit): a listed wallet tops up the deposit account of an
 * order that is still OPEN — its deposit confirmed, its payout waiting for its class (a private 10 USDC whose
 * quote asked for `privacy: { minAnonymitySet: 2 }`; nothing else of that class until the test places it).
 * Once before the deposit's sweep (swept with it, held while the order is open) and once after it (held when
 * the order is final). Nothing moves to or from the listed wallet, the recipient gets exactly its amountOut,
 * both holds are listed with the order, reconcile stays ok with them on `held:screening`, and the order
 * completes on its own deposit when its class is released (a second member arrives). And an order still
 * awaiting its deposit: the listed wallet's funds (exactly amountIn) are no deposit of it; it expires
 * (`deposit_account_taken`) and they are held with it. On the code before issue 49 both fail: the listed
 * wallet's funds were refunded to the order's sender. Sweeps and late-deposit passes run when the test says so.
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, makeTempDir, pollUntil, waitForStatus } from '../support/localnet.ts';
import { ASSETS, SOL, assertPaidOnce, ataOf, balanceOf, chainAt, depositWithRefresh, newWallet, placeOrder, waitForCleanReconcile, waitForOrder, type Chain, waitForReleasedWith } from '../support/settlement.ts';

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe('late funds from a listed wallet into an open order', () => {
  const dir = makeTempDir('hush-late-open-');
  const list = join(dir, 'blocked.txt');
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let admin: TestHush['ops'];

  before(async () => {
    writeFileSync(list, '# listed during the test\n');
    hush = await startTestHush({
      admin: true,
      env: {
        HUSH_SCREENING_LISTS: list,
        HUSH_SCREENING_RELOAD_MS: '100',
        HUSH_SWEEP_INTERVAL_S: '3600',
        // The class is released by the second member's deposit; its payouts follow within a second.
        HUSH_PAYOUT_DELAY_S: '0.2-0.6',
        // An order awaiting its deposit ends within seconds once its account is taken (the second test).
        HUSH_ORDER_TTL_S: '8',
      },
    });
    acct = await hush.createAccount();
    chain = chainAt(hush.chainUrl);
    admin = hush.ops.withKey(hush.adminToken!);
  });
  after(async () => hush?.close());

  const worker = () => hush.hush.worker!;
  const funded = () => newWallet(chain, { sol: SOL, tokens: { usdc: USDC(100) } });
  const lateHolds = async (trackingId: string) =>
    ((expectOk(await admin.get('/admin/v1/holds')) as unknown as { fundHolds?: any[] }).fundHolds ?? []).filter((h) => h.kind === 'late' && h.trackingId === trackingId);
  const heldOnLedger = async () => (await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000)).assets.find((a: { assetId: string }) => a.assetId === 'usdc').held;
  const status = async (trackingId: string) => (expectOk(await acct.client.status(trackingId)).order as any).status;
  /** `from` sends `amount` USDC to a deposit account (creating it again if its sweep closed it). */
  const send = async (from: KeyPairSigner, o: { depositOwner: Address; depositAccount: Address }, amount: bigint) => {
    const ixs = [
      getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: o.depositAccount, owner: o.depositOwner, mint: ASSETS.usdc.mint }),
      getTransferCheckedInstruction({ source: await ataOf(from.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: o.depositAccount, authority: from, amount, decimals: ASSETS.usdc.decimals }),
    ];
    const { wire } = await buildSignedTransaction(from, ixs, await latestBlockhash(chain.rpc));
    await waitForStatus(chain.rpc, await chain.rpc.sendTransaction(wire, { encoding: 'base64' }).send(), 'confirmed');
  };
  /**
   * A late-deposit pass, then a late hold of this order not among `known`; meanwhile (on code before issue 49,
   * the extra was refunded unscreened) the listed funds must not have gone on to the order's sender.
   */
  const heldFor = (trackingId: string, known: string[]) => async () => {
    await worker().lateDepositTick();
    const h = (await lateHolds(trackingId)).find((x) => !known.includes(x.holdId));
    if (h) return h;
    const { rows } = await hush.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'refund'`, [trackingId]);
    assert.equal(rows[0]!.n, 0, 'the listed wallet\'s funds were refunded to the order\'s sender without screening');
    return null;
  };
  /** A private 10 USDC order that asked for a set of two, deposited: open until its class has two members. */
  const privateOrder = async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient, privacy: { minAnonymitySet: 2 } });
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['deposit_confirmed', 'sending', 'completed'], 30_000);
    return { placed, sender, recipient };
  };

  test('a listed wallet tops up an open order before and after its sweep: held with the order, nothing moves to or from it, the order completes on its own deposit', async () => {
    const { placed, sender, recipient } = await privateOrder();
    assert.equal(await status(placed.trackingId), 'deposit_confirmed', 'open: waiting for its class');
    const listedWallet = await funded();
    appendFileSync(list, `${listedWallet.address}\n`);
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes('(1)'), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
    const senderAfterDeposit = (await balanceOf(chain, sender.address, ASSETS.usdc))!;

    // 1. Before the sweep: the sweep takes the deposit and the extra; the extra is held, the order still open.
    await send(listedWallet, placed, USDC(3));
    await pollUntil(
      async () => (await hush.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [placed.trackingId])).rows[0]?.swept || ((await worker().sweepTick()) >= 0 && null),
      { timeoutMs: 20_000, intervalMs: 200, what: 'the sweep of the deposit' },
    );
    const first = await pollUntil(heldFor(placed.trackingId, []), { timeoutMs: 20_000, intervalMs: 300, what: 'the extra held' });
    assert.deepEqual([first.amount, first.decision.stage, first.decision.field, first.decision.address], ['3000000', 'late', 'lateFundsPayer', listedWallet.address]);
    assert.equal(await status(placed.trackingId), 'deposit_confirmed', 'the order is still open, on its own deposit');
    assert.equal(await heldOnLedger(), '3000000', 'the extra is on the held ledger account');

    // 2. After the sweep, still open: the funds wait in the account (no pass takes an open order's account).
    await send(listedWallet, placed, USDC(2));
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal((await lateHolds(placed.trackingId)).length, 1);
    assert.equal(await balanceOf(chain, placed.depositOwner, ASSETS.usdc), USDC(2), 'untouched while the order is open');

    // 3. The class's second member releases it: the order is paid its own amountOut, once, and nothing more.
    const companion = await privateOrder();
    // releasedWith is counted where the release landed, once all of it has (docs/spec.md §9): wait for it.
    const done = await waitForReleasedWith(acct.client, placed.trackingId, 30_000);
    await waitForOrder(acct.client, companion.placed.trackingId, ['completed'], 30_000);
    assert.equal(done.privacy.releasedWith, 2, 'released with its class');
    await assertPaidOnce(hush.db, placed.trackingId, 'payout', placed.amountOut);
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), placed.amountOut, 'the recipient gets its order\'s amountOut, none of the extra');

    // 4. Now final: the second top-up is screened like the first, held with the order.
    const second = await pollUntil(heldFor(placed.trackingId, [first.holdId]), { timeoutMs: 30_000, intervalMs: 300, what: 'the second top-up held' });
    assert.deepEqual([second.amount, second.decision.field, second.decision.address], ['2000000', 'lateFundsPayer', listedWallet.address]);
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal(await balanceOf(chain, listedWallet.address, ASSETS.usdc), USDC(95), 'the listed wallet got nothing back');
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), senderAfterDeposit, 'nothing went to the order\'s sender');
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), placed.amountOut, 'nor to its recipient');
    assert.equal(await heldOnLedger(), '5000000', 'both held apart on the ledger');
  });

  test('a listed wallet sends to the deposit account of an order awaiting its deposit: no deposit of the order, held with it once it ends', async () => {
    const sender = await funded();
    const placed = await placeOrder(acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address });
    const listedWallet = await funded();
    appendFileSync(list, `${listedWallet.address}\n`);
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes('(2)'), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
    // Exactly the order's amountIn, from someone else: not its deposit (docs/spec.md §5, "Whose deposit").
    await send(listedWallet, placed, placed.amountIn);
    const ended = await waitForOrder(acct.client, placed.trackingId, ['expired', 'deposit_confirmed', 'completed', 'refunding', 'refunded', 'held'], 30_000);
    assert.deepEqual([ended.status, ended.failureReason, ended.deposit], ['expired', 'deposit_account_taken', null]);
    const h = await pollUntil(heldFor(placed.trackingId, []), { timeoutMs: 90_000, intervalMs: 300, what: 'the funds held' });
    assert.deepEqual([h.amount, h.decision.field, h.decision.address], [placed.amountIn.toString(), 'lateFundsPayer', listedWallet.address]);
    for (let i = 0; i < 2; i++) await worker().lateDepositTick();
    assert.equal(await balanceOf(chain, listedWallet.address, ASSETS.usdc), USDC(100) - placed.amountIn, 'the listed wallet got nothing back');
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), USDC(100), 'nor did the order\'s sender');
    assert.equal(await heldOnLedger(), (5_000_000n + placed.amountIn).toString(), 'held apart on the ledger, beside the first test\'s');
  });
});
