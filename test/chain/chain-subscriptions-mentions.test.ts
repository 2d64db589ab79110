/**
 * watchMentions against the local chain's real PubSub server: the signatures of transactions that touch a
 * watched account arrive as they land (how the deposit watch learns a deposit's signature without a
 * history read), and unwatching unsubscribes on the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { ChainSubscriptions } from '../../src/chain/chain-subscriptions.ts';
import { fundedWallet, pollUntil, send, startTestLocalnet, transferTx, type TestLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

let net: TestLocalnet;

before(async () => {
  net = await startTestLocalnet({ slotMs: 50 });
});
after(async () => {
  await net.close();
});

describe('ChainSubscriptions.watchMentions', () => {
  it('hears the signature of a transaction into the watched account, and nothing once unwatched', async () => {
    const subs = new ChainSubscriptions({ wsUrl: net.net.pubsub.url, rpc: net.rpc, clock: systemClock, random: systemRandom }).start();
    try {
      const target = (await generateKeyPairSigner()).address;
      const heard: { signature: string; err: unknown }[] = [];
      const unwatch = subs.watchMentions(target, (tx) => heard.push(tx));
      await pollUntil(async () => net.net.pubsub.hub.subscriptionCount === 1, { what: 'logs subscribed' });
      const wallet = await fundedWallet(net.rpc);
      const tx = await transferTx(net.rpc, wallet, target, 1_000_000n);
      await send(net.rpc, tx.wire);
      await pollUntil(async () => heard.length >= 1, { what: 'mention heard' });
      assert.deepEqual(heard[0], { signature: tx.signature, err: null });
      unwatch();
      await pollUntil(async () => net.net.pubsub.hub.subscriptionCount === 0, { what: 'logsUnsubscribe sent' });
      const count = heard.length;
      // Another amount: within one slot (a loaded machine) the same transfer would be the same bytes, refused as a duplicate.
      const tx2 = await transferTx(net.rpc, wallet, target, 1_000_001n);
      await send(net.rpc, tx2.wire);
      await pollUntil(async () => (await net.rpc.getSignatureStatuses([tx2.signature]).send()).value[0]?.confirmationStatus === 'confirmed', { what: 'second transfer confirmed' });
      assert.equal(heard.length, count);
    } finally {
      await subs.close();
    }
  });
});
