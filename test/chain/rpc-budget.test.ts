/**
 * The request budget (HUSH_RPC_MAX_RPS): every RPC call of a SolanaChain, kit's and the plain-JSON
 * batches alike, goes through one limiter where a batch costs one token per call; a 429 is waited out
 * (Retry-After) and never reaches the caller; the counter behind /metrics counts calls by method and
 * outcome. Real localnet behind the counting, fault-injecting JSON-RPC proxy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { ChainView } from '../../src/chain/chain-view.ts';
import { address } from '../support/hush-server.ts';
import { proxiedLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';

const net = proxiedLocalnet();

async function counted(c: SolanaChain): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const v of (await c.budget.requests.get()).values) out.set(`${v.labels.method} ${v.labels.outcome}`, v.value);
  return out;
}

test('kit calls and plain-JSON batches share one budget; a batch costs one token per call', { timeout: 30_000 }, async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 5_000, 20);
  const view = new ChainView(c);
  const accounts = await Promise.all(Array.from({ length: 20 }, () => address()));
  net.proxy.reset();
  const started = performance.now();
  // 20 (a full bucket) + a batch of 20 + 20 single kit calls = 60 calls at 20/s with a burst of 20: ≥ 2 s.
  // The kit calls differ (kit's transport coalesces identical requests that reach it in the same tick).
  await Promise.all([
    ...accounts.map((a) => c.rpc.getBalance(a).send()),
    view.firstSignatures(accounts),
    ...Array.from({ length: 20 }, () => c.call('getSlot', [])),
  ]);
  const ms = performance.now() - started;
  assert.ok(ms >= 1_800, `60 calls at 20/s took only ${ms.toFixed(0)} ms`);
  assert.ok(ms < 6_000, `60 calls at 20/s took ${ms.toFixed(0)} ms`);
  assert.equal(net.proxy.counts.get('getBalance'), 20);
  assert.equal(net.proxy.counts.get('getSlot'), 20);
  assert.equal(net.proxy.counts.get('getSignaturesForAddress'), 20);
  const m = await counted(c);
  assert.equal(m.get('getBalance ok'), 20);
  assert.equal(m.get('getSlot ok'), 20);
  assert.equal(m.get('getSignaturesForAddress ok'), 20, 'each call of the batch is counted');
});

test('no budget (0): calls are not held back', async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 5_000, 0);
  const started = performance.now();
  await Promise.all(Array.from({ length: 60 }, () => c.call('getSlot', [])));
  // Held back at the default 10 calls/s, 60 calls take at least 5 s (a second's burst, then 10 a second):
  // well under that means no budget, whatever else loads the machine.
  const ms = performance.now() - started;
  assert.ok(ms < 4_000, `60 calls took ${ms.toFixed(0)} ms: held back as if budgeted`);
});

test('a 429 is honoured (Retry-After, every caller waits) and never reaches the caller', { timeout: 30_000 }, async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 5_000, 0);
  net.proxy.setFaults([{ kind: '429', retryAfterS: 1, times: 2 }]);
  try {
    const started = performance.now();
    const [a, b] = await Promise.all([c.rpc.getSlot().send(), c.call<number>('getSlot', [])]);
    const ms = performance.now() - started;
    assert.equal(typeof a, 'bigint');
    assert.equal(typeof b, 'number');
    assert.ok(ms >= 900, `answered after ${ms.toFixed(0)} ms: the Retry-After was not waited out`);
    const m = await counted(c);
    assert.equal(m.get('getSlot rate_limited'), 2);
    assert.equal(m.get('getSlot ok'), 2);
  } finally {
    net.proxy.setFaults([]);
  }
});

test('a 429 without Retry-After backs off exponentially; a 503 is counted and handed to the caller', { timeout: 30_000 }, async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 5_000, 0);
  net.proxy.setFaults([{ kind: '429', retryAfterS: -1, times: 1 }]);
  const started = performance.now();
  assert.equal(typeof (await c.call<number>('getSlot', [])), 'number');
  assert.ok(performance.now() - started >= 450, 'backed off before trying again');
  net.proxy.setFaults([{ kind: '503', times: 1 }]);
  await assert.rejects(c.call('getSlot', []), { name: 'ChainUnavailableError' });
  net.proxy.setFaults([]);
  const m = await counted(c);
  assert.equal(m.get('getSlot rate_limited'), 1);
  assert.equal(m.get('getSlot http_error'), 1);
  assert.equal(m.get('getSlot ok'), 1);
});

test("a caller's abort signal stops its wait for the budget (a /readyz probe never waits past its bound)", { timeout: 30_000 }, async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 5_000, 1);
  await c.rpc.getSlot().send(); // the one token of the bucket
  const started = performance.now();
  const aborted = await c.rpc.getSlot().send({ abortSignal: AbortSignal.timeout(200) }).then(() => 'answered', (e: Error) => e.name);
  assert.equal(aborted, 'TimeoutError');
  assert.ok(performance.now() - started < 700, 'gave up at its own bound');
});
