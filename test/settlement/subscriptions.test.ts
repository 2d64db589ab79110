/**
 * Hush's worker on subscriptions (issue 26): slots, deposit accounts and signatures come over PubSub, so
 * an idle Hush (nothing in flight) makes at most about one HTTP request per second, counted by a JSON-RPC
 * proxy in front of the chain; and with the socket cut while orders are in flight (a TCP proxy in front
 * of the PubSub port), every order still completes, paid exactly once: by bounded polling while it is
 * down, by the restored subscriptions after.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { ASSETS, assertPaidOnce, balanceOf, chainAt, depositOf, newWallet, signAndSend, waitForOrder, type Chain } from '../support/settlement.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const SLOT_MS = 100;
const IDLE_S = 10;
/**
 * Idle, what is left is polled on purpose: the blockhash kept fresh for quotes (getLatestBlockhash and
 * getBlockHeight every 5 s: 0.4/s) and the pools' balances behind quotes (one getMultipleAccounts every
 * 2 s: 0.5/s), 9 calls in 10 s. A window can catch one more refresh of each at its edges (2 + 1 calls).
 */
const IDLE_ALLOWANCE = 2;

let localnet: TestLocalnet;
let chain: Chain;
let rpcProxy: RpcFaultProxy;
let wsProxy: TcpProxy & { port: number };
let t: TestHush;
let acct: TestAccount;

before(async () => {
  localnet = await startTestLocalnet({ slotMs: SLOT_MS });
  chain = chainAt(localnet.url);
  rpcProxy = await startRpcFaultProxy(localnet.url, systemClock, systemRandom);
  wsProxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(localnet.net.wsUrl).port) });
  t = await startTestHush({
    env: { SOLANA_RPC_URL: rpcProxy.url, SOLANA_WS_URL: `ws://127.0.0.1:${wsProxy.port}`, LOCALNET_SLOT_MS: String(SLOT_MS) },
  });
  acct = await t.createAccount();
});
after(async () => {
  await t?.close();
  await wsProxy?.close();
  await rpcProxy?.close();
  await localnet?.close();
});

test(`idle for ${IDLE_S} s: at most ${IDLE_S} HTTP requests to the chain (+${IDLE_ALLOWANCE})`, { timeout: 60_000 }, async () => {
  // Start-up work (funding, first reads, the subscriptions' first connection) settles first.
  await new Promise((r) => setTimeout(r, 2_000));
  rpcProxy.reset();
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  const total = rpcProxy.total();
  console.log(`# idle ${IDLE_S} s: ${total} requests (${(total / IDLE_S).toFixed(2)}/s): ${JSON.stringify([...rpcProxy.counts])}`);
  assert.ok(total <= IDLE_S + IDLE_ALLOWANCE, `idle Hush made ${total} requests in ${IDLE_S} s: ${JSON.stringify([...rpcProxy.counts])}`);
  const stats = t.hush.worker!.context.subscriptions!.stats();
  assert.equal(stats.state, 'connected');
  assert.ok(stats.notifications.slot >= (IDLE_S * 1000) / SLOT_MS / 2, `slots came as notifications (${stats.notifications.slot})`);
});

interface Placed {
  trackingId: string;
  recipient: Address;
  amountOut: bigint;
  sender: KeyPairSigner;
  transaction: string;
}

async function place(sender: KeyPairSigner): Promise<Placed> {
  const recipient = (await generateKeyPairSigner()).address;
  const req = { amount: '2000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient };
  const quoted = await acct.client.quote(req);
  assert.equal(quoted.status, 200, quoted.text);
  const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
  const ordered = await acct.client.order({ quote: quoted.body.quote, ...terms });
  assert.equal(ordered.status, 200, ordered.text);
  const order = ordered.body.order;
  depositOf(order.transaction);
  return { trackingId: order.trackingId, recipient, amountOut: BigInt(order.amountOut), sender, transaction: order.transaction };
}

test('the socket cut with orders in flight: every order completes exactly once (polling, then subscriptions again)', { timeout: 180_000 }, async () => {
  const subs = t.hush.worker!.context.subscriptions!;
  const reconnectsBefore = subs.stats().reconnects;
  const senders = await Promise.all(Array.from({ length: 6 }, () => newWallet(chain, { sol: 1_000_000_000n, tokens: { usdc: 10_000_000n } })));
  const placed = await Promise.all(senders.map((s) => place(s)));
  // Half deposit with the socket up, then the socket is cut (and refused) while those settle, the other
  // half deposit while it is down, and it comes back while they are in flight.
  await Promise.all(placed.slice(0, 3).map((p) => signAndSend(chain, p.transaction, p.sender)));
  await wsProxy.set('refuse');
  const downAt = Date.now();
  const slotPollsBefore = rpcProxy.counts.get('getSlot') ?? 0;
  await Promise.all(placed.slice(3).map((p) => signAndSend(chain, p.transaction, p.sender)));
  await waitForOrder(acct.client, placed[3]!.trackingId, ['completed'], 60_000);
  assert.notEqual(subs.state, 'connected', 'still cut while the first orders completed by polling');
  console.log(`# completed by polling ${Date.now() - downAt} ms after the cut`);
  // Bounded: at the default budget (10/s) the slot is polled at most every 500 ms (a fifth of it) meanwhile.
  const downS = (Date.now() - downAt) / 1000;
  const slotPolls = (rpcProxy.counts.get('getSlot') ?? 0) - slotPollsBefore;
  assert.ok(slotPolls <= Math.ceil(downS * 2) + 2, `${slotPolls} getSlot in ${downS.toFixed(1)} s down`);
  assert.ok(slotPolls > 0, 'the slot was polled while the socket was down');
  await wsProxy.set('forward');
  for (const p of placed) await waitForOrder(acct.client, p.trackingId, ['completed'], 60_000);
  for (const p of placed) {
    await assertPaidOnce(t.db, p.trackingId, 'payout', p.amountOut);
    assert.equal(await balanceOf(chain, p.recipient, ASSETS.usdc), p.amountOut, `${p.trackingId}: paid exactly once on chain`);
  }
  // Back on the socket: it reconnected and slots arrive as notifications again.
  const deadline = Date.now() + 30_000;
  while (subs.state !== 'connected' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(subs.state, 'connected');
  assert.ok(subs.stats().reconnects > reconnectsBefore, 'the subscriptions reconnected');
  const slots = subs.stats().notifications.slot;
  await new Promise((r) => setTimeout(r, 1_000));
  assert.ok(subs.stats().notifications.slot > slots, 'slot notifications flow again');
  // Orders after the outage: their deposits are seen by account notifications, not by balance polls.
  const accountsBefore = subs.stats().notifications.account;
  const signaturesBefore = subs.stats().notifications.signature;
  // A payout's status read every few seconds may settle it before its notification arrives on a loaded machine (the
  // watch then ends unnotified): up to three rounds of two orders, until one payout's notification came.
  for (let round = 0; round < 3 && subs.stats().notifications.signature === signaturesBefore; round++) {
    const more = await Promise.all((await Promise.all(Array.from({ length: 2 }, () => newWallet(chain, { sol: 1_000_000_000n, tokens: { usdc: 10_000_000n } })))).map((s) => place(s)));
    await new Promise((r) => setTimeout(r, 3 * SLOT_MS));
    await Promise.all(more.map((p) => signAndSend(chain, p.transaction, p.sender)));
    for (const p of more) await waitForOrder(acct.client, p.trackingId, ['completed'], 60_000);
    for (const p of more) await assertPaidOnce(t.db, p.trackingId, 'payout', p.amountOut);
  }
  assert.ok(subs.stats().notifications.account > accountsBefore, 'deposits arrived as account notifications');
  assert.ok(subs.stats().notifications.signature > signaturesBefore, 'payouts confirmed by signature notifications');
  // What an operator sees of it in /metrics.
  const metrics = await (await fetch(`${t.opsUrl}/metrics`)).text();
  assert.match(metrics, /^hush_pubsub_state\{state="connected"\} 1$/m);
  assert.match(metrics, /^hush_pubsub_reconnects_total [1-9]\d*$/m);
  assert.match(metrics, /^hush_deposit_confirmed_to_completed_seconds_count [1-9]\d*$/m, 'completions observed in the histogram');
  for (const kind of ['slot', 'account', 'signature']) assert.match(metrics, new RegExp(`^hush_pubsub_notifications_total\\{kind="${kind}"\\} [1-9]\\d*$`, 'm'));
});
