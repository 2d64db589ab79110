/**
 * Issue 35, finding 1: the request budget has lanes (src/chain/rpc-budget.ts). A settlement call is
 * served before API calls queued ahead of it; the API lane gets at most half the rate while settlement
 * has demand; a caller that gave up leaves the queue without taking a token; an API call that cannot get
 * a turn within the RPC timeout is refused, not held. The budget alone, on real timers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RpcBudget } from '../../src/chain/rpc-budget.ts';
import { systemClock } from '../../src/support/clock.ts';

/** The order in which takes were granted, by label. */
function recorder() {
  const order: string[] = [];
  return { order, take: (p: Promise<void>, label: string) => p.then(() => void order.push(label)) };
}

test('a settlement take is served before API takes queued ahead of it', async () => {
  const budget = new RpcBudget(10, 10_000, systemClock);
  await budget.take(10, undefined, 'settlement'); // the bucket is empty: everything below queues
  const r = recorder();
  const all = [
    r.take(budget.take(1, undefined, 'api'), 'api1'),
    r.take(budget.take(1, undefined, 'api'), 'api2'),
    r.take(budget.take(1, undefined, 'api'), 'api3'),
    r.take(budget.take(1, undefined, 'settlement'), 'settlement'),
  ];
  await Promise.all(all);
  assert.equal(r.order[0], 'settlement', `granted in the order ${r.order.join(', ')}`);
  assert.deepEqual(r.order.slice(1), ['api1', 'api2', 'api3'], 'the API lane keeps its own arrival order');
});

test('an aborted take leaves the queue and takes no token', async () => {
  const budget = new RpcBudget(1, 10_000, systemClock); // one token a second
  await budget.take(1);
  const gaveUp = new AbortController();
  const abandoned = budget.take(1, gaveUp.signal).then(() => 'granted', (e: Error) => e.name);
  const started = performance.now();
  const next = budget.take(1);
  gaveUp.abort();
  assert.equal(await abandoned, 'AbortError');
  await next;
  const ms = performance.now() - started;
  // With the abandoned turn still taking its token, the next would wait two seconds.
  assert.ok(ms < 1_600, `the next caller waited ${ms.toFixed(0)} ms: the abandoned turn took a token`);
  assert.ok(ms >= 900, `the next caller waited only ${ms.toFixed(0)} ms`);
});

test('while settlement has demand the API lane gets at most half the rate; idle, all of it', async () => {
  const budget = new RpcBudget(20, 10_000, systemClock);
  await budget.take(20, undefined, 'settlement');
  // 3 s of steady settlement demand (one call per 100 ms = half the rate) beside an API flood.
  let api = 0;
  const stop = performance.now() + 3_000;
  const flood = Array.from({ length: 40 }, async () => {
    while (performance.now() < stop) {
      await budget.take(1, undefined, 'api');
      if (performance.now() < stop) api++;
    }
  });
  let settlement = 0;
  const worker = (async () => {
    while (performance.now() < stop) {
      await budget.take(1, undefined, 'settlement');
      settlement++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await Promise.all([...flood, worker]);
  // 3 s at 20/s is 60 tokens; the API's share is 10/s (+ its burst of 10); settlement, finding a token
  // kept for it each time, makes its ~30 calls as if alone.
  assert.ok(api <= 3 * 10 + 10 + 2, `the API lane took ${api} calls in 3 s beside settlement`);
  assert.ok(api >= 15, `the API lane got only ${api} calls: it should have its share`);
  assert.ok(settlement >= 26, `settlement got only ${settlement} of its ~30 calls`);
  // Settlement idle (its last call over a second ago): the API lane may use the whole rate.
  await new Promise((r) => setTimeout(r, 1_100));
  const started = performance.now();
  await Promise.all(Array.from({ length: 30 }, () => budget.take(1, undefined, 'api')));
  const ms = performance.now() - started;
  // A full bucket of 20 at once, then 10 more at 20/s: about 0.5 s (at the API's half share, 2 s).
  assert.ok(ms < 1_300, `30 API calls with settlement idle took ${ms.toFixed(0)} ms`);
});

test('an API call with no turn within the RPC timeout is refused as the chain being unavailable', async () => {
  const budget = new RpcBudget(1, 300, systemClock);
  await budget.take(1);
  await assert.rejects(budget.take(5, undefined, 'api').then(() => budget.take(5, undefined, 'api')), { name: 'ChainUnavailableError' });
  // A settlement call waits as long as it takes.
  const started = performance.now();
  await budget.take(1, undefined, 'settlement');
  assert.ok(performance.now() - started >= 250);
});

test('settlement saturating the budget still leaves the API lane its floor, and keeps the rest', async () => {
  const budget = new RpcBudget(20, 10_000, systemClock);
  await budget.take(20, undefined, 'settlement');
  const stop = performance.now() + 2_000;
  let settlement = 0;
  let api = 0;
  // Settlement keeps its queue full (10 callers back to back); one partner's reads wait behind it.
  const workers = Array.from({ length: 10 }, async () => {
    while (performance.now() < stop) {
      await budget.take(1, undefined, 'settlement');
      settlement++;
    }
  });
  const partner = (async () => {
    while (performance.now() < stop) {
      await budget.take(1, undefined, 'api');
      api++;
    }
  })();
  await Promise.all([...workers, partner]);
  // 2 s at 20/s: the floor is a fifth (about 8); strict priority would give the API nothing.
  assert.ok(api >= 5, `the API lane got ${api} calls in 2 s while settlement kept its queue full`);
  assert.ok(api <= 12, `the API lane took ${api} calls: more than its floor`);
  assert.ok(settlement >= 25, `settlement got only ${settlement} calls`);
});
