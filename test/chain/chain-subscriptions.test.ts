/**
 * The chain subscriptions client against the local chain's real PubSub server: slots, account and signature
 * watches, a socket killed on the server side (reconnect, resubscribe), and an outage during which a
 * watched signature lands: its final state still arrives, exactly once, through the check after reconnect.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPairSigner, lamports, type Address } from '@solana/kit';
import { ChainSubscriptions, type AccountUpdate, type ConnectionState, type SignatureOutcome } from '../../src/chain/chain-subscriptions.ts';
import { backoffDelay } from '../../src/chain/pubsub-connection.ts';
import { startPubSubServer, type RunningPubSub } from '../../src/localnet/pubsub-server.ts';
import { fundedWallet, pollUntil, send, sleep, startTestLocalnet, transferTx, waitForStatus, type TestLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

let net: TestLocalnet;
/** The server in use: the test replaces it to simulate an outage. */
let server: RunningPubSub;

before(async () => {
  net = await startTestLocalnet({ slotMs: 50 });
  server = net.net.pubsub;
});
after(async () => {
  if (server !== net.net.pubsub) await server.close();
  await net.close();
});

function client(extra: Partial<ConstructorParameters<typeof ChainSubscriptions>[0]> = {}): ChainSubscriptions {
  return new ChainSubscriptions({ wsUrl: server.url, rpc: net.rpc, clock: systemClock, random: systemRandom, initialBackoffMs: 50, maxBackoffMs: 400, ...extra }).start();
}

describe('ChainSubscriptions', () => {
  it('slots, account watches (add and remove) and a signature watch; counters by kind', async () => {
    const subs = client();
    try {
      const slots: bigint[] = [];
      const stopSlots = subs.onSlot((s) => slots.push(s));
      await pollUntil(async () => slots.length >= 3, { what: 'three slots' });
      assert.ok(slots.every((s, i) => i === 0 || s > slots[i - 1]!));
      stopSlots();

      const target = (await generateKeyPairSigner()).address;
      const updates: AccountUpdate[] = [];
      const unwatch = subs.watchAccount(target, (u) => updates.push(u));
      await pollUntil(async () => server.hub.subscriptionCount === 1, { what: 'account subscribed' });
      await net.rpc.requestAirdrop(target, lamports(2_000_000n)).send();
      await pollUntil(async () => updates.length >= 1, { what: 'account update' });
      assert.equal(updates[0]!.account!.lamports, 2_000_000n);
      assert.equal(updates[0]!.source, 'notification');
      unwatch();
      await pollUntil(async () => server.hub.subscriptionCount === 0, { what: 'unwatch unsubscribes on the server' });

      const wallet = await fundedWallet(net.rpc);
      const tx = await transferTx(net.rpc, wallet, target, 1_000_000n);
      const outcomes: SignatureOutcome[] = [];
      subs.watchSignature(tx.signature, (o) => outcomes.push(o));
      await pollUntil(async () => server.hub.subscriptionCount === 1, { what: 'signature subscribed' });
      await send(net.rpc, tx.wire);
      await pollUntil(async () => outcomes.length === 1, { what: 'signature outcome' });
      assert.equal(outcomes[0]!.err, null);
      assert.equal(outcomes[0]!.source, 'notification');
      assert.equal(subs.stats().watchedSignatures, 0, 'one-shot: the watch is gone');
      await pollUntil(async () => server.hub.subscriptionCount === 0, { what: 'the server dropped the one-shot subscription' });

      // Unwatched before it lands: the server subscription goes too, and the listener never hears of it.
      const tx2 = await transferTx(net.rpc, wallet, target, 1_000_000n);
      const unwatchSig = subs.watchSignature(tx2.signature, (o) => outcomes.push(o));
      await pollUntil(async () => server.hub.subscriptionCount === 1, { what: 'second signature subscribed' });
      unwatchSig();
      await pollUntil(async () => server.hub.subscriptionCount === 0, { what: 'signatureUnsubscribe sent' });
      await send(net.rpc, tx2.wire);
      await waitForStatus(net.rpc, tx2.signature, 'confirmed');
      await sleep(100);
      assert.equal(outcomes.length, 1);

      const stats = subs.stats();
      assert.equal(stats.state, 'connected');
      assert.ok(stats.notifications.slot >= 3);
      assert.equal(stats.notifications.account, 1);
      assert.equal(stats.notifications.signature, 1);
    } finally {
      await subs.close();
    }
  });

  it('a socket killed on the server side: state reconnecting, then connected, everything resubscribed', async () => {
    const states: ConnectionState[] = [];
    const subs = client({ random: { ...systemRandom, float: () => 0.5 } });
    subs.onStateChange((s) => states.push(s));
    try {
      const target = (await generateKeyPairSigner()).address;
      const updates: AccountUpdate[] = [];
      subs.watchAccount(target, (u) => updates.push(u));
      const slots: bigint[] = [];
      subs.onSlot((s) => slots.push(s));
      await pollUntil(async () => server.hub.subscriptionCount === 2 && slots.length > 0, { what: 'subscribed' });

      server.dropConnections();
      await pollUntil(async () => subs.stats().reconnects === 1 && subs.state === 'connected', { what: 'reconnected' });
      assert.deepEqual(states, ['connected', 'reconnecting', 'connected']);
      await pollUntil(async () => server.hub.subscriptionCount === 2, { what: 'both subscriptions restored on the server' });

      const before = slots.length;
      await net.rpc.requestAirdrop(target, lamports(3_000_000n)).send();
      await pollUntil(async () => updates.some((u) => u.account?.lamports === 3_000_000n), { what: 'account notification after reconnect' });
      await pollUntil(async () => slots.length > before, { what: 'slots after reconnect' });
    } finally {
      await subs.close();
    }
    await pollUntil(async () => server.hub.subscriptionCount === 0, { what: 'close drops the subscriptions' });
  });

  it('an outage across which a watched signature lands: its final state arrives once, after the reconnect', async () => {
    const wallet = await fundedWallet(net.rpc);
    const target = (await generateKeyPairSigner()).address;
    const tx = await transferTx(net.rpc, wallet, target, 4_000_000n);
    const httpChecks: string[] = [];
    const countingRpc = {
      getSignatureStatuses: (...a: Parameters<typeof net.rpc.getSignatureStatuses>) => (httpChecks.push('statuses'), net.rpc.getSignatureStatuses(...a)),
      getMultipleAccounts: (...a: Parameters<typeof net.rpc.getMultipleAccounts>) => (httpChecks.push('accounts'), net.rpc.getMultipleAccounts(...a)),
    } as unknown as typeof net.rpc;
    const subs = client({ rpc: countingRpc });
    const outcomes: SignatureOutcome[] = [];
    const updates: AccountUpdate[] = [];
    const states: ConnectionState[] = [];
    subs.onStateChange((s) => states.push(s));
    try {
      subs.watchSignature(tx.signature, (o) => outcomes.push(o));
      subs.watchAccount(target, (u) => updates.push(u));
      await pollUntil(async () => server.hub.subscriptionCount === 2, { what: 'subscribed' });

      // The whole PubSub server goes away: every reconnect attempt is refused until it is back.
      const port = server.port;
      await server.close();
      await pollUntil(async () => subs.state === 'reconnecting', { what: 'client sees the drop' });
      await send(net.rpc, tx.wire);
      await waitForStatus(net.rpc, tx.signature, 'confirmed');
      await sleep(300); // a few refused attempts
      assert.equal(subs.state, 'reconnecting');
      assert.equal(outcomes.length, 0, 'nothing could arrive while down');
      assert.equal(httpChecks.length, 0, 'no HTTP while down unless asked to poll');

      server = await startPubSubServer(net.net.chain, { host: '127.0.0.1', port });
      await pollUntil(async () => outcomes.length === 1, { what: 'the outcome after reconnecting', timeoutMs: 10_000 });
      assert.equal(outcomes[0]!.signature, tx.signature);
      assert.equal(outcomes[0]!.err, null);
      await pollUntil(async () => updates.some((u) => u.account?.lamports === 4_000_000n), { what: 'the account state after reconnecting' });
      await sleep(300);
      assert.equal(outcomes.length, 1, 'delivered exactly once (HTTP check and any late notification)');
      // The status check is skipped only when the server's own notification won the race.
      const expected = outcomes[0]!.source === 'http' || httpChecks.includes('statuses') ? ['statuses', 'accounts'] : ['accounts'];
      assert.deepEqual(httpChecks, expected, 'one HTTP check after the reconnect');
      assert.equal(subs.state, 'connected');
      assert.ok(subs.stats().reconnects >= 1);
      assert.ok(states.includes('reconnecting') && states.at(-1) === 'connected');
    } finally {
      await subs.close();
    }
  });

  it('polls while down when asked; a refused watch (bad address) is dropped; a throwing listener is survived', async () => {
    const target = (await generateKeyPairSigner()).address;
    const port = server.port;
    await server.close();
    const subs = client({ pollWhileDownMs: 100, maxBackoffMs: 200 });
    const updates: AccountUpdate[] = [];
    try {
      subs.watchAccount(target, (u) => updates.push(u));
      await pollUntil(async () => subs.state === 'reconnecting', { what: 'down from the start' });
      await net.rpc.requestAirdrop(target, lamports(5_000_000n)).send();
      await pollUntil(async () => updates.some((u) => u.account?.lamports === 5_000_000n && u.source === 'http'), { what: 'polled while down' });

      server = await startPubSubServer(net.net.chain, { host: '127.0.0.1', port });
      await pollUntil(async () => subs.state === 'connected', { what: 'up again' });
      subs.watchAccount('not-an-address' as Address, () => {});
      await pollUntil(async () => subs.stats().watchedAccounts === 1 && server.hub.subscriptionCount === 1, { what: 'the refused watch dropped, the valid one kept' });

      // A listener that throws is logged, not fatal: the next notification still arrives.
      let calls = 0;
      subs.watchAccount(target, () => {
        calls++;
        throw new Error('listener bug');
      });
      await net.rpc.requestAirdrop(target, lamports(1_000_000n)).send();
      await pollUntil(async () => calls === 1, { what: 'first notification' });
      await net.rpc.requestAirdrop(target, lamports(1_000_000n)).send();
      await pollUntil(async () => calls === 2 && subs.state === 'connected', { what: 'second notification' });
    } finally {
      await subs.close();
    }
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt up to the cap, jittered within the upper half', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, 250, 5000, () => 1)), [250, 500, 1000, 2000, 4000, 5000]);
    assert.deepEqual([0, 1, 2, 10].map((a) => backoffDelay(a, 250, 5000, () => 0)), [125, 250, 500, 2500]);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(3, 250, 5000, () => systemRandom.float());
      assert.ok(d >= 1000 && d <= 2000, String(d));
    }
  });
});
