/**
 * A simulated Hush (test/support/sim-hush.ts) whose chain provider misbehaves (test/support/sim-rpc-faults.ts):
 * with 503s, 429s, stalls and answers lost after the call ran, a handful of orders each complete and are paid
 * exactly once (in the store and on chain), the API never answers 500 and logs nothing at error level, and the
 * ledger reconciles. Under a provider's request budget enforced with 429s, 20 orders all complete and none
 * fails, with or without a budget of Hush's own (HUSH_RPC_MAX_RPS); with one, Hush keeps within the
 * provider's. The senders' own wallets and deposits reach the chain directly: only Hush's traffic is faulted.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { expectOk, type ApiResponse } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { assertPaidOnce } from '../support/settlement-landed.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, startSimHush, USDC, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { answers, captureApiLog, rpcStandIn, type ApiLogRecord, type ProviderBudget, type RpcStandIn, type SimFaultRule } from '../support/sim-rpc-faults.ts';
import { ChainRefused } from '../../sim/chain-users.ts';

let h: SimHush | undefined;
let provider: RpcStandIn;
let acct: SimAccount;
let apiLog: ApiLogRecord[];
let client: HushClient;
let ops: HushClient;
const statuses: { status: number; path: string }[] = [];

after(async () => {
  await closeSim(h);
});

/** A fresh simulated Hush behind the provider stand-in, with `env` added; the previous one is closed. */
async function startBehindProvider(seed: number, env: Record<string, string> = {}): Promise<SimHush> {
  await closeSim(h);
  h = await startSimHush({ seed, env: { HUSH_RPC_TIMEOUT_MS: '3000', ...env } });
  provider = rpcStandIn(h);
  apiLog = captureApiLog(h);
  acct = await h.createAccount();
  ({ client, ops } = answers(h, acct.apiKey, statuses));
  return h;
}

/** Asks until the answer is not a 503 (the chain was away): a partner's retry on Retry-After. Never a 500. */
async function untilNot503(h: SimHush, what: string, ask: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let i = 0; ; i++) {
    const r = await ask();
    assert.notEqual(r.status, 500, `${what}: ${r.text}`);
    if (r.status !== 503) return r;
    assert.ok(['CHAIN_UNAVAILABLE', 'INSUFFICIENT_LIQUIDITY', 'SERVICE_UNAVAILABLE'].includes(r.body.error.code), `${what}: ${r.text}`);
    assert.ok(i < 100, `${what}: still 503 after ${i} tries: ${r.text}`);
    await h.advance(300);
  }
}

interface Placed {
  trackingId: string;
  transaction: string;
  sender: SimWallet;
  recipient: string;
  amountOut: bigint;
}

/** A 2 USDC order (off the menu: paid at the floor, no class to wait for), placed through the faults. */
async function place(h: SimHush, sender: SimWallet): Promise<Placed> {
  const recipient = h.address();
  const req = { amount: '2000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient };
  const quoted = await untilNot503(h, 'quote', () => client.quote(req));
  assert.equal(quoted.status, 200, quoted.text);
  const ordered = await untilNot503(h, 'order', () => client.order({ quote: quoted.body.quote, senderAddress: sender.address, recipientAddress: recipient }));
  assert.equal(ordered.status, 200, ordered.text);
  const order = ordered.body.order;
  return { trackingId: order.trackingId, transaction: order.transaction, sender, recipient, amountOut: BigInt(order.amountOut) };
}

/** Every sender's deposit sent at once (a blockhash that died while the orders were placed: refreshed first). */
async function depositAll(h: SimHush, placed: Placed[]): Promise<void> {
  const sends = placed.map(async (p) => {
    try {
      return await h.chain.send(p.sender.signWire(p.transaction).wire);
    } catch (e) {
      if (!(e instanceof ChainRefused) || !/Blockhash not found/.test(e.message)) throw e;
      return null;
    }
  });
  const sigs = await h.drive(Promise.all(sends));
  for (const [i, p] of placed.entries()) {
    let sig = sigs[i];
    if (!sig) {
      const refreshed = await untilNot503(h, 'refresh', () => client.refresh(p.trackingId));
      sig = await h.drive(h.chain.send(p.sender.signWire(refreshed.body.order.transaction).wire));
    }
    assert.ok(await h.drive(h.chain.confirmed(sig, h.clock)), `${p.trackingId}: the deposit confirmed`);
  }
}

async function runOrders(h: SimHush, n: number, faults: SimFaultRule[], budget: ProviderBudget | null = null): Promise<void> {
  const senders: SimWallet[] = [];
  for (let i = 0; i < n; i++) senders.push(await h.wallet({ sol: SOL, usdc: 10n * USDC }));
  const from = apiLog.length;
  const answeredFrom = statuses.length;
  provider.reset();
  provider.setFaults(faults);
  provider.setBudget(budget);
  // Under a budget, idle polling alone uses it up first: the orders then run against 429s from the start.
  if (budget) await h.advance(3_000);
  try {
    const placed: Placed[] = [];
    for (const s of senders) placed.push(await place(h, s));
    await depositAll(h, placed);
    await h.until(`${n} orders completed`, async () => {
      for (const p of placed) {
        const rec = expectOk(await client.status(p.trackingId)).order;
        assert.ok(rec.status === 'completed' || !rec.final, `${p.trackingId} ended ${rec.status} (${rec.failureReason})`);
        if (rec.status !== 'completed') return false;
      }
      return true;
    }, 600_000, 1_000);
    for (const p of placed) {
      await assertPaidOnce(h.db, p.trackingId, 'payout', p.amountOut);
      assert.equal(await h.drive(h.chain.holding(p.recipient, 'usdc')), p.amountOut, `${p.trackingId}: the recipient holds amountOut exactly once on chain`);
    }
  } finally {
    provider.setFaults([]);
    provider.setBudget(null);
  }
  const { rows } = await h.drive(h.db.query<{ n: string }>("SELECT count(*)::text AS n FROM orders WHERE status = 'failed'"));
  assert.equal(rows[0]!.n, '0', 'no order failed');
  await h.until('a clean reconcile', async () => {
    const res = await ops.get('/admin/v1/reconcile');
    return res.status === 200 && res.body.ok === true && res.body.pendingTransactions === 0 ? res.body : null;
  }, 120_000, 1_000);
  assert.deepEqual(statuses.slice(answeredFrom).filter((a) => a.status >= 500 && a.status !== 503), [], 'no 5xx but 503 from the API');
  assert.deepEqual(apiLog.slice(from).filter((r) => r.level >= 50), [], 'no error-level log record');
}

test('503s, 429s, stalls and lost answers: every order completes, paid exactly once; no 500; reconcile clean', async () => {
  const h = await startBehindProvider(71);
  await runOrders(h, 5, [
    // Each kind for sure (the first matching requests), payout and sweep sends among them; then at random.
    { kind: 'lost', methods: ['sendTransaction'], times: 2 },
    { kind: '503', methods: ['sendTransaction'], times: 1 },
    { kind: 'stall', times: 2, stallMs: 1_500 },
    { kind: '503', times: 3 },
    { kind: '429', times: 2, retryAfterS: 1 },
    { kind: '503', probability: 0.08 },
    { kind: '429', probability: 0.04, retryAfterS: 1 },
    { kind: 'stall', probability: 0.03, stallMs: 1_500 },
    { kind: 'lost', probability: 0.04 },
  ]);
  for (const kind of ['503', '429', 'stall', 'lost']) assert.ok((provider.outcomes.get(kind) ?? 0) > 0, `the provider gave ${kind}`);
});

/** A provider's budget: 40 calls per 10 s per method, 100 in all, 429 with Retry-After beyond. */
const PROVIDER_BUDGET = { windowMs: 10_000, perMethod: 40, total: 100, retryAfterS: 1 };

test("a provider's budget enforced with 429s, Hush with no budget of its own: 20 orders all complete, none failed", async () => {
  const h = await startBehindProvider(72, { HUSH_RPC_MAX_RPS: '0' });
  await runOrders(h, 20, [], PROVIDER_BUDGET);
  assert.ok((provider.outcomes.get('429') ?? 0) > 0, `the provider answered 429 ${provider.outcomes.get('429') ?? 0} times`);
});

test('the same provider budget, Hush at HUSH_RPC_MAX_RPS=10: 20 orders complete, within it (next to no 429)', async (t) => {
  const h = await startBehindProvider(73, { HUSH_RPC_MAX_RPS: '10' });
  const started = h.now();
  await runOrders(h, 20, [], PROVIDER_BUDGET);
  const seconds = (h.now() - started) / 1000;
  const refused = provider.outcomes.get('429') ?? 0;
  t.diagnostic(`20 orders at HUSH_RPC_MAX_RPS=10 in ${seconds.toFixed(1)} simulated s (reconcile included); ${provider.total()} calls, ${refused} refused: ${JSON.stringify([...provider.counts])}`);
  // Hush's budget is a token bucket of 10/s with a burst of one second's worth (src/chain/rpc-budget.ts); the
  // provider's is 100 per sliding 10 s window. A bucket may spend its burst on top of a window's 100, so at most
  // one burst (10 calls) per window touched is refused by design.
  const windows = Math.ceil(seconds / 10);
  assert.ok(refused <= 10 * windows, `${refused} of ${provider.total()} calls refused in ${windows} windows of the provider`);
  // The counts run from before the warm-up (3 s, inside `seconds`) to the clean reconcile: 10 per second plus one burst.
  assert.ok(provider.total() <= 10 * seconds + 20, `${provider.total()} calls in ${seconds.toFixed(1)} s: over the budget`);
});
