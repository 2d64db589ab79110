/**
 * A Solana RPC that accepts connections but never answers (a black hole, not a refusal) must not hang Hush's
 * chain client: over real sockets, with kit's own transport and the global fetch (production's, which the
 * simulator replaces), the worker's batched reads and a kit call fail after HUSH_RPC_TIMEOUT_MS rather than
 * wait, and answer again once the RPC does. The chain is a real localnet behind a TCP proxy the test switches
 * between passing and swallowing. What the API does meanwhile (/readyz, quotes, the inventory's trust) is
 * tested on simulated time: test/api/chain-faults.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { ChainView } from '../../src/chain/chain-view.ts';
import { address } from '../support/hush-server.ts';
import { startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { systemClock } from '../../src/support/clock.ts';

const RPC_TIMEOUT_MS = 500;

let chain: TestLocalnet;
let proxy: Awaited<ReturnType<typeof TcpProxy.start>>;

before(async () => {
  chain = await startTestLocalnet();
  proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(chain.url).port) });
});
after(async () => {
  await proxy?.close();
  await chain?.close();
});

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await f();
  return { value, ms: performance.now() - start };
}

test("the worker's batched reads and a kit call on a silent RPC fail after the timeout", async () => {
  const view = new ChainView(new SolanaChain(proxy.url, systemClock, 400, RPC_TIMEOUT_MS));
  const account = await address();
  await proxy.set('swallow');
  try {
    const batch = await timed(() => view.firstSignatures([account]).then(() => 'answered', (e: Error) => `${e.name} ${(e.cause as Error | undefined)?.name}`));
    assert.equal(batch.value, 'ChainUnavailableError TimeoutError');
    assert.ok(batch.ms < RPC_TIMEOUT_MS + 2_500, `batch took ${batch.ms.toFixed(0)} ms`);
    const single = await timed(() => view.firstSignature(account).then(() => 'answered', () => 'failed'));
    assert.equal(single.value, 'failed');
    assert.ok(single.ms < RPC_TIMEOUT_MS + 2_500, `kit call took ${single.ms.toFixed(0)} ms`);
  } finally {
    await proxy.set('forward');
  }
  assert.deepEqual(await view.firstSignatures([account]), [null], 'answers once the RPC does (no history)');
});
