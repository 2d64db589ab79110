/**
 * A second RPC endpoint that lags the chain by a few slots (src/localnet/lagging-view.ts), as an RPC node behind
 * the cluster does: its slot and blockhashes are behind, a fresh blockhash is unknown to it, and what landed
 * after its tip has no status there yet.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSolanaRpc } from '@solana/kit';
import { laggingView } from '../../src/localnet/lagging-view.ts';
import { buildRpcServer } from '../../src/localnet/rpc-server.ts';
import { startLocalnet } from '../../src/localnet/start-localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { makeTempDir, removeDir, waitForSlot } from '../support/localnet.ts';
import { faucetWallet, pricedTransfer, sendWire, statusOf, steppedChain } from '../support/stepped-chain.ts';

test('four slots behind: its slot and blockhash lag, a fresh blockhash fails preflight, statuses appear late', async () => {
  const c = await steppedChain();
  const behind = buildRpcServer(laggingView(c.chain, 4));
  try {
    const payer = await faucetWallet(c);
    c.advance(10);
    const slotOf = async (server?: typeof behind) => (await c.call('getSlot', [{ commitment: 'processed' }], server)).result as bigint;
    assert.equal(await slotOf(behind), (await slotOf()) - 4n);
    const fresh = (await c.call('getLatestBlockhash', [{ commitment: 'confirmed' }])).result.value;
    const lagging = (await c.call('getLatestBlockhash', [{ commitment: 'confirmed' }], behind)).result.value;
    assert.equal(lagging.lastValidBlockHeight, fresh.lastValidBlockHeight - 4n);
    assert.equal((await c.call('isBlockhashValid', [fresh.blockhash, { commitment: 'processed' }], behind)).result.value, false);

    const tx = await pricedTransfer(c, payer, { microLamports: 1000n, blockhash: fresh });
    const refused = await sendWire(c, tx.wire, { server: behind });
    assert.equal(Number(refused.error?.code), -32002);
    assert.equal(refused.error?.data?.err, 'BlockhashNotFound');
    // Without preflight the node passes it on to the leader, which knows the blockhash.
    assert.equal((await sendWire(c, tx.wire, { server: behind, skipPreflight: true })).result, tx.signature);
    assert.ok(await statusOf(c, tx.signature), 'landed on the chain');
    assert.equal(await statusOf(c, tx.signature, behind), null, 'not yet seen by the node behind');
    assert.equal((await c.call('getTransaction', [tx.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }], behind)).result, null);
    c.advance(4);
    assert.equal((await statusOf(c, tx.signature, behind))?.confirmationStatus, 'processed');
    // Its accounts are those of its tip: the recipient's balance arrives there with the status.
    const balance = async (server?: typeof behind) => (await c.call('getBalance', [payer.address, { commitment: 'processed' }], server)).result.value as bigint;
    c.advance(1);
    assert.equal(await balance(behind), await balance());
  } finally {
    await behind.close();
    await c.close();
  }
});

test('startLocalnet serves the lagging endpoint on its own port when asked', async () => {
  const dataDir = makeTempDir();
  const net = await startLocalnet({ host: '127.0.0.1', port: 0, slotMs: 50, dataDir, lagging: { port: 0, slots: 3 } }, systemClock, systemRandom);
  try {
    assert.ok(net.laggingUrl && net.laggingUrl !== net.url);
    await waitForSlot(createSolanaRpc(net.url), 6n);
    const [tip, behind] = await Promise.all([createSolanaRpc(net.url).getSlot({ commitment: 'processed' }).send(), createSolanaRpc(net.laggingUrl).getSlot({ commitment: 'processed' }).send()]);
    assert.ok(tip - behind >= 2n && tip - behind <= 4n, `${tip} vs ${behind}`);
  } finally {
    await net.close();
    removeDir(dataDir);
  }
});
