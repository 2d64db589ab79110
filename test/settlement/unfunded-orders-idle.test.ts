/**
 * Issue 43, item 3 — free unfunded orders must not spend the chain budget. With the PubSub socket up, a
 * watched deposit account costs no polling: the worker takes its balance from notifications, reads it at
 * `processed` only after a transaction mentioned it, and reads the finalized height only for an order past
 * its expiration. Against a real Hush (embedded chain behind a counting JSON-RPC proxy, default budget of
 * 10 calls/s): with N open unfunded orders, the chain calls per second stay at the idle rate (≤ 1.5/s; on
 * the old code they filled the budget), and a deposit to one of them is still seen and paid exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import { assertPaidOnce, balanceOf, ASSETS, chainAt, newWallet, placeOrder, signAndSend, waitForOrder, type Chain, type PlacedOrder, type QuoteReq } from '../support/settlement.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const SLOT_MS = 100;
const ORDERS = 60;
const WINDOW_S = 8;
/** Issue 43's target: the idle rate with open unfunded orders (idle alone is ~0.9/s: blockhash and pool refreshes). */
const MAX_RPS = 1.5;

let localnet: TestLocalnet;
let chain: Chain;
let rpcProxy: RpcFaultProxy;
let t: TestHush;
let acct: TestAccount;

before(async () => {
  localnet = await startTestLocalnet({ slotMs: SLOT_MS });
  chain = chainAt(localnet.url);
  rpcProxy = await startRpcFaultProxy(localnet.url, systemClock, systemRandom);
  t = await startTestHush({
    env: {
      SOLANA_RPC_URL: rpcProxy.url,
      SOLANA_WS_URL: localnet.net.wsUrl,
      LOCALNET_SLOT_MS: String(SLOT_MS),
      // One account's flood, above the default cap of 50 open orders.
      HUSH_MAX_OPEN_ORDERS: '1000',
    },
  });
  acct = await t.createAccount();
});
after(async () => {
  await t?.close();
  await rpcProxy?.close();
  await localnet?.close();
});

const calls = () => JSON.stringify(Object.fromEntries(rpcProxy.counts));

const QUIET_MS = 600;
async function accountReadsQuiet(timeoutMs = 20_000): Promise<void> {
  const reads = () => rpcProxy.counts.get('getMultipleAccounts') ?? 0;
  let seen = reads();
  let since = performance.now();
  const deadline = since + timeoutMs;
  while (performance.now() - since < QUIET_MS) {
    assert.ok(performance.now() < deadline, `account reads did not stop within ${timeoutMs} ms: ${calls()}`);
    await new Promise((r) => setTimeout(r, 50));
    if (reads() !== seen) [seen, since] = [reads(), performance.now()];
  }
}

test(`${ORDERS} open unfunded orders with the socket up: ≤ ${MAX_RPS} chain calls/s, and a deposit to one of them is still paid`, { timeout: 120_000 }, async () => {
  const subs = t.hush.worker!.context.subscriptions!;
  const funded: KeyPairSigner = await newWallet(chain, { sol: 1_000_000_000n, tokens: { usdc: 10_000_000n } });
  const flooder = (await generateKeyPairSigner()).address;
  const quote = async (sender: Address): Promise<QuoteReq> => ({
    amount: '2000000',
    sourceAssetId: 'usdc',
    destinationAssetId: 'usdc',
    senderAddress: sender,
    recipientAddress: (await generateKeyPairSigner()).address,
  });
  // ORDERS - 1 from a sender who never pays, and one from a funded sender, all left unfunded for now.
  const placed: PlacedOrder[] = [];
  for (let i = 0; i < ORDERS - 1; i += 10) placed.push(...(await Promise.all(Array.from({ length: Math.min(10, ORDERS - 1 - i) }, async () => placeOrder(acct.client, await quote(flooder))))));
  const mine = await placeOrder(acct.client, await quote(funded.address));
  placed.push(mine);
  // The worker watches every deposit account (one subscription each).
  const deadline = Date.now() + 30_000;
  while (subs.stats().watchedAccounts < ORDERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(subs.stats().watchedAccounts >= ORDERS, `the worker watches the ${ORDERS} deposit accounts (${subs.stats().watchedAccounts})`);
  assert.equal(subs.state, 'connected');
  // The worker reads the accounts it has just begun to watch, one batch a slot: setup, not idle. The window opens once
  // those reads have stopped (no account read for QUIET_MS; the idle refreshes come 2 s apart). Under load the reads
  // outlived the subscriptions' count by a few slots and were counted as idle (a clean-clone run read 13 calls).
  await accountReadsQuiet();

  rpcProxy.reset();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const seconds = (performance.now() - t0) / 1000;
  const total = rpcProxy.total();
  console.log(`# ${ORDERS} open unfunded orders, ${seconds.toFixed(1)} s: ${total} calls (${(total / seconds).toFixed(2)}/s): ${calls()}`);
  assert.ok(total / seconds <= MAX_RPS, `${(total / seconds).toFixed(2)} calls/s with ${ORDERS} open unfunded orders (old code: the budget, 10/s): ${calls()}`);
  assert.equal(subs.state, 'connected', 'measured with the socket up');
  for (const p of placed.slice(0, 5)) assert.equal((await acct.client.status(p.trackingId)).body.order.status, 'awaiting_deposit', 'the orders are still open');

  // A deposit to one of them: seen by its account notification, confirmed and paid once.
  const accountsBefore = subs.stats().notifications.account;
  const refreshed = expectOk(await acct.client.refresh(mine.trackingId)).order;
  await signAndSend(chain, refreshed.transaction, funded);
  await waitForOrder(acct.client, mine.trackingId, ['completed'], 30_000);
  await assertPaidOnce(t.db, mine.trackingId, 'payout', mine.amountOut);
  assert.equal(await balanceOf(chain, mine.req.recipientAddress, ASSETS.usdc), mine.amountOut, 'the recipient holds amountOut');
  assert.ok(subs.stats().notifications.account > accountsBefore, 'the deposit arrived as an account notification');
});
