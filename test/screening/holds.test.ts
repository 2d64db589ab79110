/**
 * docs/spec.md §12 end to end on the local chain, with a real list file and a real (local) risk API:
 * an address blocked after its quote is held when the deposit confirms, a recipient blocked while the
 * payout waits is held before it is sent, a risk API that does not answer holds (policy hold) or passes
 * (policy allow); the operator's release, refund and freeze each settle, and the ledger reconciles.
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, KeyPairSigner } from '@solana/kit';
import { listScreeningLog } from '../../src/store/screening-log-store.ts';
import { runAdminCli } from '../../src/cli/admin-cli.ts';
import { expectError, expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { makeTempDir, pollUntil } from '../support/localnet.ts';
import { ASSETS, balanceOf, chainAt, depositWithRefresh, newWallet, placeOrder, waitForCleanReconcile, waitForOrder, type Chain } from '../support/settlement.ts';

/** A risk API in the common shape: clear for everyone, except addresses it is told to be slow on. */
async function riskApi(): Promise<{ url: string; slow: Set<string>; server: Server }> {
  const slow = new Set<string>();
  const server = createServer((req, res) => {
    const address = decodeURIComponent(req.url!.split('/').pop()!);
    if (slow.has(address)) return void setTimeout(() => res.end('{}'), 5_000).unref();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ address, risk: 'none', blocked: false }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, slow, server };
}

const USDC = (n: number) => BigInt(n) * 1_000_000n;
/** Off the menu (docs/spec.md §9: paid at the floor): these tests are about screening, not the class release. */
const AMOUNT = 12_000_000n;

describe('holds: screening at deposit and before payout, resolved by an operator', () => {
  const dir = makeTempDir('hush-holds-');
  const list = join(dir, 'blocked.txt');
  let risk: Awaited<ReturnType<typeof riskApi>>;
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let admin: TestHush['ops'];

  before(async () => {
    writeFileSync(list, '# blocked after quoting\n');
    risk = await riskApi();
    hush = await startTestHush({
      admin: true,
      env: {
        HUSH_SCREENING_LISTS: list,
        HUSH_SCREENING_RELOAD_MS: '100',
        HUSH_SCREENING_URL: risk.url,
        HUSH_SCREENING_TIMEOUT_MS: '300',
        HUSH_SCREENING_CACHE_TTL_S: '0',
        // A release's payouts 8 s after it: long enough to block a recipient between the deposit's
        // confirmation and the payout of an order that waits (order's `wait`).
        HUSH_PAYOUT_DELAY_S: '8-8',
      },
    });
    acct = await hush.createAccount();
    chain = chainAt(hush.chainUrl);
    admin = hush.ops.withKey(hush.adminToken!);
    // A webhook (never answering): the events are enqueued, which is what is checked.
    expectOk(await admin.request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: 'http://127.0.0.1:9/hooks' } }));
  });
  after(async () => {
    await hush?.close();
    risk?.server.close();
  });

  let listed = 0;
  /** Adds an address to the list file and waits until the server has reloaded it (/readyz counts its addresses). */
  const block = async (address: string) => {
    appendFileSync(list, `${address}\n`);
    listed += 1;
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes(`(${listed})`), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
  };

  /**
   * An amount off the menu is paid at the floor, two slots after its deposit confirms (docs/spec.md §9);
   * `wait`: a private amount whose user chose to wait up to 20 s, so its payout waits (held ~10 s, then
   * spread 8 s) whatever the class's traffic.
   */
  const order = (sender: KeyPairSigner, recipient: Address, wait = false) =>
    placeOrder(acct.client, { amount: (wait ? USDC(10) : AMOUNT).toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient, ...(wait ? { privacy: { maxDelaySeconds: 20 } } : {}) });
  const funded = () => newWallet(chain, { sol: 100_000_000n, tokens: { usdc: USDC(50) } });
  const resolve = (trackingId: string, action: string, note = 'reviewed') => admin.request('POST', `/admin/v1/orders/${trackingId}/resolve`, { body: { action, note, operator: 'alice' } });

  test('a sender blocked after quoting is held at deposit; its refund is refused; it is frozen, booked apart, and reconciles', async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient);
    await block(sender.address);
    await depositWithRefresh(acct.client, chain, placed, sender);
    const held = await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.equal(held.failureReason, 'screening');
    assert.equal(held.final, false);
    assert.deepEqual(held.payouts, [], 'nothing was sent');
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), null, 'the recipient got nothing');

    const queue = expectOk(await admin.get('/admin/v1/holds')) as unknown as { holds: any[] };
    const mine = queue.holds.find((h) => h.trackingId === placed.trackingId);
    assert.equal(mine.decision.stage, 'deposit');
    assert.equal(mine.decision.result, 'blocked');
    assert.equal(mine.decision.field, 'senderAddress');
    assert.equal(mine.decision.list, 'blocked.txt');

    // Never back to a blocked address.
    assert.deepEqual(expectError(await resolve(placed.trackingId, 'refund'), 403, 'ADDRESS_BLOCKED').details, { field: 'senderAddress' });
    expectError(await resolve(placed.trackingId, 'freeze', ''), 400, 'INVALID_REQUEST');
    assert.deepEqual(expectOk(await resolve(placed.trackingId, 'freeze', 'OFAC match confirmed')) as unknown, { success: true, trackingId: placed.trackingId, status: 'frozen' });
    expectError(await resolve(placed.trackingId, 'release'), 409, 'ORDER_NOT_HELD');
    const frozen = await waitForOrder(acct.client, placed.trackingId, ['frozen'], 5_000);
    assert.equal(frozen.final, true);
    assert.deepEqual(frozen.history.map((h: { status: string }) => h.status).slice(-3), ['deposit_confirmed', 'held', 'frozen']);

    const log = await listScreeningLog(hush.db, { trackingId: placed.trackingId });
    const resolution = log.find((e) => e.stage === 'resolution')!;
    assert.equal(resolution.result, 'freeze');
    assert.equal(resolution.actor, 'operator:alice');
    assert.equal(resolution.note, 'OFAC match confirmed');

    // The partner is told: order.held and order.frozen, each right after its transition's status event.
    const { rows: events } = await hush.db.query<{ type: string; status: string }>(
      `SELECT type, status FROM webhook_events WHERE order_id = (SELECT id FROM orders WHERE tracking_id = $1) AND status IN ('held', 'frozen') ORDER BY id`,
      [placed.trackingId],
    );
    assert.deepEqual(events.map((e) => `${e.type}:${e.status}`), ['order.status_changed:held', 'order.held:held', 'order.status_changed:frozen', 'order.frozen:frozen']);

    // Its disclosure receipt states what screening found and what the operator did.
    await hush.hush.receipts!.pass();
    const receipt = (expectOk(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`)) as unknown as { receipt: { document: { status: string; screening: { stage: string; result: string; list: string | null }[] } } }).receipt;
    assert.equal(receipt.document.status, 'frozen');
    assert.deepEqual(receipt.document.screening.map((e) => `${e.stage}:${e.result}:${e.list ?? '-'}`), ['deposit:held by screening:-', 'resolution:freeze:-']);
    // Issue 49: what the partner reads never names the list, the provider or a version (the admin log keeps them).
    assert.doesNotMatch(JSON.stringify(receipt), /blocked\.txt|http:127|[0-9a-f]{16}@/);

    const report = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    assert.equal(report.assets.find((a: { assetId: string }) => a.assetId === 'usdc').frozen, AMOUNT.toString(), 'reconcile shows the frozen deposit');
  });

  test('a recipient blocked while the payout waits is held before it is sent; the refund returns the deposit less the network fee', async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient, true);
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['deposit_confirmed'], 30_000);
    await block(recipient);
    const held = await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.equal(held.failureReason, 'screening');
    const log = await listScreeningLog(hush.db, { trackingId: placed.trackingId });
    assert.deepEqual(log.map((e) => `${e.stage}:${e.result}:${e.field ?? '-'}`).reverse(), ['deposit:clear:-', 'payout:blocked:recipientAddress']);

    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    expectOk(await resolve(placed.trackingId, 'refund', 'recipient sanctioned; sender clear'));
    const refunded = await waitForOrder(acct.client, placed.trackingId, ['refunded'], 30_000);
    assert.equal(refunded.failureReason, 'screening');
    assert.equal((await balanceOf(chain, sender.address, ASSETS.usdc))! - before, placed.amountIn - placed.networkFee);
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), null);
  });

  test('an order an operator releases completes, and is not held again for the same finding', async () => {
    const sender = await funded();
    const recipient = (await newWallet(chain)).address;
    const placed = await order(sender, recipient);
    await block(sender.address);
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    // The operator's admin CLI, over the server's ops listener: the queue, then the answer.
    const io = { lines: [] as string[], out(t: string) { this.lines.push(t); }, err(t: string) { this.lines.push(t); } };
    const env = { HUSH_OPS_URL: hush.opsUrl, HUSH_ADMIN_TOKEN: hush.adminToken! };
    assert.equal(await runAdminCli(['holds'], env, io), 0, io.lines.join(''));
    assert.ok((JSON.parse(io.lines[0]!) as { holds: { trackingId: string }[] }).holds.some((h) => h.trackingId === placed.trackingId));
    io.lines.length = 0;
    assert.equal(await runAdminCli(['resolve', placed.trackingId, 'release', 'false positive: a different person'], env, io), 0, io.lines.join(''));
    assert.equal((JSON.parse(io.lines[0]!) as { status: string }).status, 'deposit_confirmed');
    const done = await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    assert.equal(done.failureReason, null);
    assert.equal(await balanceOf(chain, recipient, ASSETS.usdc), placed.amountOut);
  });

  test('a deposit the hint confirms is screened as it confirms: held at deposit with the worker stopped', async () => {
    const sender = await funded();
    const placed = await order(sender, (await newWallet(chain)).address);
    await block(sender.address);
    // The worker stopped, so the hint alone confirms the deposit, through the one confirmation, which screens it.
    const worker = hush.hush.worker!;
    await worker.stop();
    try {
      const signature = await depositWithRefresh(acct.client, chain, placed, sender);
      await pollUntil(async () => (await acct.client.deposit({ trackingId: placed.trackingId, signature })).status === 200 || null, { timeoutMs: 20_000, intervalMs: 200, what: 'the hint confirming the deposit' });
      const held = await waitForOrder(acct.client, placed.trackingId, ['held'], 5_000);
      assert.equal(held.failureReason, 'screening');
    } finally {
      worker.start();
    }
    const [decision] = await listScreeningLog(hush.db, { trackingId: placed.trackingId });
    assert.equal(`${decision!.stage}:${decision!.result}:${decision!.field}:${decision!.actor}`, 'deposit:blocked:senderAddress:deposit-hint');
    expectOk(await resolve(placed.trackingId, 'freeze', 'blocked sender, confirmed by hint'));
  });

  test('a risk API that does not answer holds the deposit (HUSH_SCREENING_ON_ERROR=hold)', async () => {
    const sender = await funded();
    const placed = await order(sender, (await newWallet(chain)).address);
    risk.slow.add(sender.address);
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    const [latest] = await listScreeningLog(hush.db, { trackingId: placed.trackingId });
    assert.equal(latest!.result, 'error');
    assert.match(latest!.reason ?? '', /no answer within 300 ms/);
    // Everything this suite held, refunded, released or froze reconciles with the chain (a held deposit included).
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });
});

describe('holds: a risk API that does not answer passes under HUSH_SCREENING_ON_ERROR=allow', () => {
  let risk: Awaited<ReturnType<typeof riskApi>>;
  let hush: TestHush;
  before(async () => {
    risk = await riskApi();
    hush = await startTestHush({ env: { HUSH_SCREENING_URL: risk.url, HUSH_SCREENING_TIMEOUT_MS: '200', HUSH_SCREENING_ON_ERROR: 'allow', HUSH_SCREENING_CACHE_TTL_S: '0' } });
  });
  after(async () => {
    await hush?.close();
    risk?.server.close();
  });

  test('the order completes; the log keeps the unanswered check', async () => {
    const acct = await hush.createAccount();
    const chain = chainAt(hush.chainUrl);
    const sender = await newWallet(chain, { sol: 100_000_000n, tokens: { usdc: USDC(20) } });
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address });
    risk.slow.add(sender.address);
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    const [entry] = await listScreeningLog(hush.db, { trackingId: placed.trackingId });
    assert.equal(entry!.result, 'error');
    assert.match(entry!.reason ?? '', /passed \(HUSH_SCREENING_ON_ERROR=allow\)/);
  });
});
