/**
 * A Solana RPC that accepts connections but never answers (a black hole, not a refusal) must not hang
 * Hush: /readyz answers at once from kept state and says 503 within its staleness bound, a quote (which reads nothing on the chain) does not
 * wait on it, and the worker's batched reads fail rather than wait.
 * The chain is a real localnet behind a TCP proxy the test switches between passing and swallowing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { ChainView } from '../../src/chain/chain-view.ts';
import { address, expectError, expectOk, startTestHush, type ApiResponse, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { pollUntil, startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { fundFromLocalFaucet } from '../../src/treasury/funding.ts';
import { systemClock } from '../../src/support/clock.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

const RPC_TIMEOUT_MS = 500;
/** How stale /readyz may be (src/runtime/readiness.ts): one blockhash refresh period (5 s) plus one RPC timeout, and slack. */
const READY_STALE_MS = 5_000 + RPC_TIMEOUT_MS + 2_000;

let chain: TestLocalnet;
let proxy: Awaited<ReturnType<typeof TcpProxy.start>>;
let t: TestHush;
let acct: TestAccount;

before(async () => {
  chain = await startTestLocalnet();
  proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(chain.url).port) });
  t = await startTestHush({ env: { HUSH_ROLE: 'api', SOLANA_RPC_URL: proxy.url, HUSH_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
  // Role api funds nothing itself; the pools need inventory for a quote to be answered. Funding is the
  // setup, not the subject: straight to the chain, at the default RPC timeout (a loaded machine's airdrop
  // outlives the 500 ms under test).
  await fundFromLocalFaucet(t.hush.db, new SolanaChain(chain.url, systemClock, t.hush.config.slotMs), t.hush.treasury, t.hush.config.assets, systemClock, processFaultPoints());
  acct = await t.createAccount();
  await pollUntil(async () => (await acct.client.quote(usdcQuote(await address(), await address()))).status === 200, { what: 'pools seen by the inventory', timeoutMs: 30_000 });
});
after(async () => {
  await t?.close();
  await proxy?.close();
  await chain?.close();
});

function usdcQuote(senderAddress: string, recipientAddress: string) {
  return { amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress, recipientAddress };
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await f();
  return { value, ms: performance.now() - start };
}

/** /readyz until it answers `status`, every answer at once (it reads kept state, never the chain). */
async function readyzUntil(status: number): Promise<ApiResponse> {
  return pollUntil(async () => {
    const ready = await timed(() => t.ops.get('/readyz'));
    assert.ok(ready.ms < 1_000, `/readyz took ${ready.ms.toFixed(0)} ms`);
    return ready.value.status === status ? ready.value : null;
  }, { what: `/readyz ${status}`, timeoutMs: READY_STALE_MS, intervalMs: 100 });
}

test('an RPC that never answers: /readyz 503 within its bound, a quote answered without waiting on it; both recover', async () => {
  // Ready first (a loaded machine may not have finished the first blockhash refresh when the test begins).
  expectOk(await readyzUntil(200));
  await proxy.set('swallow');
  try {
    // A quote reads nothing on the chain (one flat network fee, docs/spec.md §9): it does not wait on the silent
    // RPC at all, while the inventory's reading is fresh enough (the last test refuses it once it is not).
    const req = usdcQuote(await address(), await address());
    const quote = await timed(() => acct.client.quote(req));
    expectOk(quote.value);
    assert.ok(quote.ms < RPC_TIMEOUT_MS, `quote took ${quote.ms.toFixed(0)} ms: it waited on the chain`);
    assert.deepEqual({ ...expectError(await readyzUntil(503), 503, 'SERVICE_UNAVAILABLE').details, partnerPort: undefined }, { store: 'ok', chain: 'unreachable', screening: 'off', partnerPort: undefined });
  } finally {
    await proxy.set('forward');
  }
  await readyzUntil(200);
  expectOk(await acct.client.quote(usdcQuote(await address(), await address())));
});

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

test('a chain silent for longer than the inventory may be trusted: even a quote that needs no RPC answers 503 CHAIN_UNAVAILABLE; it recovers', { timeout: 60_000 }, async () => {
  // SOL to SOL: no recipient token account to look up, so only the pool inventory's age can refuse it.
  const req = { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: await address(), recipientAddress: await address() };
  expectOk(await acct.client.quote(req));
  await proxy.set('swallow');
  try {
    // The bounds come from a reading that keeps failing to refresh: answered for a few seconds, then refused.
    expectOk(await acct.client.quote(req));
    const refused = await pollUntil(async () => {
      const r = await acct.client.quote(req);
      return r.status === 200 ? null : r;
    }, { what: 'quotes refused once the inventory is stale', timeoutMs: 30_000, intervalMs: 500 });
    expectError(refused, 503, 'CHAIN_UNAVAILABLE');
    assert.equal(refused.headers.get('retry-after'), '5');
  } finally {
    await proxy.set('forward');
  }
  await pollUntil(async () => (await acct.client.quote(req)).status === 200, { what: 'quotes again once the inventory refreshes', timeoutMs: 15_000, intervalMs: 500 });
});
