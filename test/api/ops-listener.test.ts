/**
 * Issue 35, findings 1 and 3 and the admin token: the ops listener (docs/spec.md §4) against a real Hush on real
 * ports with its embedded chain. /healthz, /readyz, /metrics and /admin/v1 are on the ops port only; a
 * /readyz flood costs no chain call and does not slow an order; /metrics gives no exact pool balance;
 * repeated wrong admin tokens from one address are throttled (429), other addresses unaffected.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { expectError, expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { ASSETS, SOL, balanceOf, chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type AssetId, type Chain } from '../support/settlement.ts';
import { AdminThrottle } from '../../src/api/admin-throttle.ts';

let t: TestHush;
let acct: TestAccount;
let chain: Chain;

before(async () => {
  // No chain budget: every call goes out and is counted, so the counter shows what a probe costs. (Under
  // the default 10 calls/s, a /readyz flood used to queue settlement behind its getSlot calls.)
  t = await startTestHush({ admin: true, env: { HUSH_RPC_MAX_RPS: '0' } });
  acct = await t.createAccount();
  chain = chainAt(t.chainUrl);
});
after(async () => {
  await t?.close();
});

/** RPC calls this process made so far (hush_rpc_requests_total, all outcomes): all methods, or one. */
async function rpcCalls(method?: string): Promise<number> {
  return (await t.hush.chain.budget.requests.get()).values.filter((v) => !method || v.labels.method === method).reduce((n, v) => n + v.value, 0);
}

/** One SOL order from quote to `completed`; how long from the deposit's submission. */
async function orderToCompletion(): Promise<number> {
  const sender = await newWallet(chain, { sol: 2n * SOL });
  const recipient = (await newWallet(chain)).address;
  const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient });
  const start = performance.now();
  await depositWithRefresh(acct.client, chain, placed, sender);
  await waitForOrder(acct.client, placed.trackingId, ['completed'], 60_000);
  return performance.now() - start;
}

/** GET on a raw connection from a chosen loopback source address (127.0.0.x are all this machine). */
function getFrom(source: string, url: string, headers: Record<string, string>): Promise<{ status: number; retryAfter?: string; cacheControl?: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: source, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], cacheControl: res.headers['cache-control'], body: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
}

describe('ops listener', () => {
  test('the partner port answers 404 for /healthz, /readyz, /metrics and /admin/v1; the ops port serves them', async () => {
    assert.notEqual(t.opsUrl, t.url);
    for (const path of ['/healthz', '/readyz', '/metrics', '/admin/v1/accounts', '/admin/v1/reconcile']) {
      expectError(await t.anon.get(path), 404, 'NOT_FOUND');
      // Not even with the right admin token.
      expectError(await t.anon.get(path, { key: t.adminToken! }), 404, 'NOT_FOUND');
    }
    expectOk(await t.ops.get('/healthz'));
    expectOk(await t.ops.get('/readyz'));
    assert.equal((await t.ops.get('/metrics')).status, 200);
    expectOk(await t.ops.withKey(t.adminToken!).get('/admin/v1/accounts'));
    // The partner API and its reference stay on the partner port, and only there.
    assert.equal((await t.anon.get('/transfer/v1/openapi.json')).status, 200);
    const partnerOnOps = await fetch(`${t.opsUrl}/transfer/v1/tokens`);
    assert.equal(partnerOnOps.status, 404);
    assert.equal(((await partnerOnOps.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  test('a /readyz flood (60/s, loopback) costs no chain call, and an order completes in its normal time', { timeout: 120_000 }, async (ctx) => {
    // Baseline: one order, nothing else asking.
    let calls = await rpcCalls();
    let slots = await rpcCalls('getSlot');
    let since = performance.now();
    const normal = await orderToCompletion();
    const baselineS = (performance.now() - since) / 1000;
    const baselineRate = (await rpcCalls() - calls) / baselineS;
    const baselineSlotRate = (await rpcCalls('getSlot') - slots) / baselineS;

    // The same order under a flood of probes, kept up for at least 3 s.
    let stop = false;
    const statuses = new Map<number, number>();
    let probes = 0;
    let slowest = 0;
    const flood = (async () => {
      const began = performance.now();
      const inflight = new Set<Promise<void>>();
      // Six every 100 ms: timers that fine drift under load, a sent count does not.
      for (let tick = 0; !stop || performance.now() - began < 3_000; tick++) {
        for (let i = 0; i < 6; i++) {
          const p = (async () => {
            const s = performance.now();
            const r = await fetch(`${t.opsUrl}/readyz`);
            await r.arrayBuffer();
            slowest = Math.max(slowest, performance.now() - s);
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          })();
          inflight.add(p);
          void p.finally(() => inflight.delete(p));
          probes++;
        }
        await new Promise((r) => setTimeout(r, Math.max(0, began + (tick + 1) * 100 - performance.now())));
      }
      await Promise.all(inflight);
    })();
    calls = await rpcCalls();
    slots = await rpcCalls('getSlot');
    since = performance.now();
    const flooded = await orderToCompletion();
    stop = true;
    await flood;
    const floodCalls = (await rpcCalls()) - calls;
    const floodSlots = (await rpcCalls('getSlot')) - slots;
    const floodS = (performance.now() - since) / 1000;
    // The slowest probe is reported, not bounded: a latency figure belongs in a benchmark, and on a loaded two-core
    // machine it measures the machine; that a probe costs no chain call is what the counts below prove.
    ctx.diagnostic(`${probes} probes in ${floodS.toFixed(1)} s (slowest ${slowest.toFixed(0)} ms): ${floodCalls} RPC calls (${floodSlots} getSlot); baseline ${baselineRate.toFixed(1)}/s (${baselineSlotRate.toFixed(1)} getSlot/s); order ${flooded.toFixed(0)} ms, ${normal.toFixed(0)} ms alone`);

    assert.deepEqual([...statuses.keys()], [200], `every probe answered 200: ${JSON.stringify([...statuses])}`);
    assert.ok(probes >= 150, `the flood sent ${probes} probes`);
    // The chain sees what it would have without the flood: no getSlot per probe (what /readyz used to
    // send), and in all well under one call per four probes (the worker's own polling varies a little).
    const slotExtra = floodSlots - baselineSlotRate * floodS;
    assert.ok(slotExtra < probes / 20, `${probes} probes cost ${slotExtra.toFixed(1)} getSlot calls beyond the baseline`);
    const extra = floodCalls - baselineRate * floodS;
    assert.ok(extra < probes / 4, `${probes} probes cost ${extra.toFixed(1)} RPC calls beyond the baseline (${floodCalls} in ${floodS.toFixed(1)} s, baseline ${baselineRate.toFixed(1)}/s)`);
    // What starved settlement looked like: a getSlot per probe queued behind the chain budget, 50 a second
    // more than it lets out, so a 3 s flood alone is 15 s of backlog and growing. The counts above are the
    // guard against that; this bound only catches a stall of that size. A loaded two-core run moves one
    // order's time by seconds on its own (0.9 s alone, 8.0 s under the flood with no extra chain call, on a
    // clean clone beside the suite), so the bound leaves that much.
    assert.ok(flooded <= normal + 15_000, `the order took ${flooded.toFixed(0)} ms under the flood, ${normal.toFixed(0)} ms without`);
  });

  test('/metrics gives no exact pool balance: free inventory only as a coarse fraction of its target', async () => {
    const text = (await t.ops.get('/metrics')).text;
    assert.doesNotMatch(text, /hush_inventory_free_base_units/);
    // The fee payer's balance is exported exactly (it is no pool, and public on chain): its line is left out, since
    // on the local chain it is funded with as many lamports as the USDC pools hold base units.
    const numbers = new Set([...text.matchAll(/^([a-z_]+)(?:\{[^}]*\})? (\S+)$/gm)].filter((m) => m[1] !== 'hush_fee_payer_lamports').map((m) => Number(m[2])));
    for (const asset of ['sol', 'usdc', 'bonk'] as AssetId[]) {
      const pools = t.hush.treasury.pools(asset).map((p) => p.address as Address);
      const balances = await Promise.all(pools.map(async (p) => (await balanceOf(chain, p, ASSETS[asset])) ?? 0n));
      const total = balances.reduce((a, b) => a + b, 0n);
      assert.ok(total > 0n, `${asset} pools are funded`);
      for (const figure of [total, ...balances]) assert.ok(!numbers.has(Number(figure)), `${asset}: ${figure} appears in /metrics`);
      const ratio = new RegExp(`^hush_inventory_skew_ratio\\{asset="${asset}"\\} (\\S+)$`, 'm').exec(text);
      assert.ok(ratio, `${asset}: the coarse ratio is exported`);
      const v = Number(ratio[1]);
      assert.ok(v > 0 && Math.abs(v * 10 - Math.round(v * 10)) < 1e-9, `${asset}: ratio ${v} is a whole number of tenths`);
    }
  });

  test('wrong admin tokens from one address: 401 up to the threshold, then 429 with Retry-After; the right token still passes; another address is unaffected', async () => {
    const url = `${t.opsUrl}/admin/v1/accounts`;
    const wrong = { authorization: `Bearer ${'x'.repeat(43)}` };
    const right = { authorization: `Bearer ${t.adminToken}` };
    const burst = new AdminThrottle().burst;
    for (let i = 0; i < burst; i++) {
      const r = await getFrom('127.0.0.3', url, wrong);
      assert.equal(r.status, 401, `attempt ${i + 1}`);
      assert.equal(r.body.error.code, 'UNAUTHORIZED');
    }
    const over = await getFrom('127.0.0.3', url, wrong);
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, 'RATE_LIMITED');
    assert.match(over.retryAfter ?? '', /^[1-9]\d*$/);
    const correct = await getFrom('127.0.0.3', url, right);
    assert.equal(correct.status, 200, 'the operator behind the same address is not locked out by a guesser');
    assert.equal(correct.cacheControl, 'no-store', 'an admin answer is kept by no cache');
    assert.equal((await getFrom('127.0.0.3', url, wrong)).status, 429, 'the guesser still is');
    assert.equal((await getFrom('127.0.0.3', url, {})).status, 429, 'and so is a request with no token, while throttled');
    // Another source keeps its own budget.
    assert.equal((await getFrom('127.0.0.4', url, right)).status, 200);
    assert.equal((await getFrom('127.0.0.4', url, wrong)).status, 401);
  });
});

describe('the ops listener serves its own host names only', () => {
  test('an address literal, localhost and HUSH_OPS_HOSTNAMES pass; another name (a DNS-rebinding page) is refused before the admin API or its throttle', async () => {
    const port = new URL(t.opsUrl).port;
    const url = `${t.opsUrl}/admin/v1/accounts`;
    const right = { authorization: `Bearer ${t.adminToken}` };
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
      assert.equal((await getFrom('127.0.0.1', url, { ...right, host })).status, 200, host);
    }
    const rebound = await getFrom('127.0.0.5', url, { ...right, host: `evil.example:${port}` });
    assert.equal(rebound.status, 400);
    assert.equal(rebound.body.error.code, 'INVALID_REQUEST');
    assert.match(rebound.body.error.message, /does not serve the host "evil\.example"/);
    // Refused before the admin API counts it: wrong tokens under another name spend no operator's budget.
    for (let i = 0; i < 20; i++) await getFrom('127.0.0.6', url, { authorization: 'Bearer wrong', host: 'evil.example' });
    assert.equal((await getFrom('127.0.0.6', url, { authorization: 'Bearer wrong' })).status, 401, 'the address still has its whole budget');
    assert.equal((await getFrom('127.0.0.1', `${t.opsUrl}/healthz`, { host: 'evil.example' })).status, 400, 'every route, not only /admin');
  });
});

describe('AdminThrottle', () => {
  test('a bucket of failures per source: refused once empty, one more try per refill period', () => {
    const th = new AdminThrottle(3, 6_000);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      assert.equal(th.retryAfterS('a', t0), 0);
      th.failed('a', t0);
    }
    assert.equal(th.retryAfterS('a', t0), 6);
    assert.equal(th.retryAfterS('a', t0 + 5_000), 1);
    assert.equal(th.retryAfterS('a', t0 + 6_000), 0, 'the window passed: one more try');
    th.failed('a', t0 + 6_000);
    assert.equal(th.retryAfterS('a', t0 + 6_000), 6);
    assert.equal(th.retryAfterS('b', t0), 0, 'other sources are unaffected');
  });

  test('tracks a bounded number of sources', () => {
    const th = new AdminThrottle(2, 60_000, 100);
    for (let i = 0; i < 1_000; i++) th.failed(`s${i}`, 0);
    assert.ok((th as unknown as { buckets: Map<string, unknown> }).buckets.size <= 100);
  });
});
