/**
 * The API over the chain's caches and failures. A deposit transaction handed out keeps ≥ 75 % of its blockhash
 * life (at fast slots: test/api/blockhash-life.test.ts). No 500 where 503 belongs, and no hang where the chain is
 * silent. With the chain answering 503, 429, or losing answers, every route that reads it (quote, order, deposit
 * hint, refresh, admin reconcile and treasury) answers 503 CHAIN_UNAVAILABLE with Retry-After or succeeds from
 * its caches, never 500; the API's log records no error-level entry and never fails to serialise kit's
 * SolanaError. With an RPC that never answers, /readyz answers at once from kept state and says 503 within its
 * staleness bound, a quote (which reads nothing on the chain) does not wait on it, and once the inventory is
 * older than it may be trusted even a quote answers 503; all recover with the chain. A simulated Hush
 * (test/support/sim-hush.ts) behind a misbehaving provider (test/support/sim-rpc-faults.ts); durations are
 * simulated time, so "at once" means no wait on any timer. Kit's own transport on a silent socket:
 * test/api/rpc-timeout.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { SOLANA_ERROR__JSON_RPC__SERVER_ERROR_NODE_UNHEALTHY, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, SolanaError } from '@solana/kit';
import { installErrorHandling } from '../../src/api/error-handler.ts';
import { ChainUnavailableError } from '../../src/chain/solana-chain.ts';
import { HushError } from '../../src/domain/errors.ts';
import { expectError, expectOk, type ApiResponse } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimHush } from '../support/sim-hush.ts';
import { answers, captureApiLog, rpcStandIn, type ApiLogRecord, type RpcStandIn, type SimFaultKind } from '../support/sim-rpc-faults.ts';

const RPC_TIMEOUT_MS = 500;
/** How stale /readyz may be (src/runtime/readiness.ts): one blockhash refresh period (5 s) plus one RPC timeout, and slack. */
const READY_STALE_MS = 5_000 + RPC_TIMEOUT_MS + 2_000;

/** 2xx, or 503 CHAIN_UNAVAILABLE with Retry-After; never anything else. */
function assertOkOr503(res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) {
  if (res.statusCode < 300) return;
  assert.equal(res.statusCode, 503, `${what}: ${res.statusCode} ${res.body}`);
  assert.equal(JSON.parse(res.body).error.code, 'CHAIN_UNAVAILABLE', `${what}: ${res.body}`);
  assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: no Retry-After`);
}

/** The same for an answer to a client of the simulated Hush. */
function okOr503(res: ApiResponse, what: string): ApiResponse {
  assertOkOr503({ statusCode: res.status, headers: Object.fromEntries(res.headers), body: res.text }, what);
  return res;
}

test('the error handler answers 503 CHAIN_UNAVAILABLE for any chain failure, and logging kit errors cannot fail it', async () => {
  const lines: { level: number; err?: unknown }[] = [];
  const app = Fastify({ logger: { level: 'info', stream: { write: (l: string) => lines.push(JSON.parse(l)) } } });
  installErrorHandling(app);
  const httpError = () => new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: 'Service Unavailable', statusCode: 503 });
  app.get('/hush-wrapped', async () => {
    throw new HushError('CHAIN_UNAVAILABLE', 'The Solana RPC is unavailable; retry shortly', undefined, { cause: httpError() });
  });
  app.get('/kit-raw', async () => {
    throw httpError();
  });
  app.get('/json-rpc-unhealthy', async () => {
    throw new SolanaError(SOLANA_ERROR__JSON_RPC__SERVER_ERROR_NODE_UNHEALTHY, { __serverMessage: 'Node is unhealthy' } as never);
  });
  app.get('/unavailable', async () => {
    throw new Error('reconcile failed', { cause: new ChainUnavailableError('RPC unreachable (fetch failed)') });
  });
  app.get('/internal-wrapping-chain', async () => {
    throw new HushError('INTERNAL_ERROR', 'x', undefined, { cause: new ChainUnavailableError('RPC answered HTTP 503', undefined, 503) });
  });
  app.get('/provider-429', async () => {
    throw new ChainUnavailableError('RPC answered HTTP 429', undefined, 429, 30_000);
  });
  for (const path of ['/hush-wrapped', '/kit-raw', '/json-rpc-unhealthy', '/unavailable', '/internal-wrapping-chain']) {
    const res = await app.inject(path);
    assertOkOr503(res, path);
    assert.equal(res.statusCode, 503, path);
  }
  const limited = await app.inject('/provider-429');
  assert.equal(limited.statusCode, 503);
  assert.equal(limited.headers['retry-after'], '30', "the provider's longer Retry-After is passed on");
  assert.ok(lines.every((l) => l.level < 50), `error-level records: ${JSON.stringify(lines.filter((l) => l.level >= 50))}`);
  assert.ok(lines.filter((l) => l.err).length >= 5, 'each failure is logged');
  await app.close();
});

describe('the API of a simulated Hush over its chain', () => {
  let h: SimHush;
  let provider: RpcStandIn;
  let apiLog: ApiLogRecord[];
  let client: HushClient;
  let ops: HushClient;
  const statuses: { status: number; path: string }[] = [];
  before(async () => {
    h = await startSimHush({ seed: 81, env: { HUSH_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
    provider = rpcStandIn(h);
    apiLog = captureApiLog(h);
    ({ client, ops } = answers(h, (await h.createAccount()).apiKey, statuses));
    // Pools seen by the inventory. The first answer also reads a screening verdict for the first time, which
    // the simulator cannot see whole (it spans more turns of the event loop than its quiet check): the clock
    // moves on meanwhile, and the first quote would look as if it had waited on the chain.
    await h.until('quotes answered', async () => (await client.quote(usdcQuote())).status === 200, 30_000);
  });
  after(() => closeSim(h));

  const usdcQuote = () => ({ amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: h.address(), recipientAddress: h.address() });

  test('orders over a blockhash life each get a blockhash with ≥ 75 % of its life left', async (t) => {
    const lives: number[] = [];
    // An order every 3.3 s for more than a life (60 s at 400 ms slots), off the beat of the 5 s background refresh.
    for (let i = 0; i < 24; i++) {
      const req = usdcQuote();
      const quote = expectOk(await client.quote(req)).quote;
      // The slot before the request: Hush hands the blockhash out at a slot no earlier.
      const before = await h.drive(h.chain.call<number>('getSlot', [{ commitment: 'processed' }]));
      const order = expectOk(await client.order({ quote, senderAddress: req.senderAddress, recipientAddress: req.recipientAddress })).order;
      lives.push((order.blockhashExpiresAtSlot - before) / 150);
      await h.advance(3_300);
    }
    t.diagnostic(`life left at hand-out: min ${Math.min(...lives).toFixed(3)} over ${lives.length} orders`);
    // 75 % nominal, less the slot `confirmed` lags the tip and the slot an answer may span (as at fast slots:
    // test/api/blockhash-life.test.ts).
    assert.ok(Math.min(...lives) >= 0.73, `a transaction was handed out with ${(Math.min(...lives) * 100).toFixed(1)} % of its life left`);
  });

  const FAULTS: [SimFaultKind, string][] = [['503', 'answering 503'], ['429', 'answering 429'], ['lost', 'losing its answers after the call ran']];
  for (const [kind, how] of FAULTS) {
    test(`chain ${how}: quote, order, deposit hint, admin reconcile and treasury answer 503 CHAIN_UNAVAILABLE (or succeed), never 500`, async () => {
      const req = usdcQuote();
      const quote = await h.until('a quote', async () => {
        const r = await client.quote(req);
        return r.status === 200 ? r.body.quote : null;
      }, 30_000);
      const order = expectOk(await client.order({ quote, senderAddress: req.senderAddress, recipientAddress: req.recipientAddress })).order;
      const from = apiLog.length;
      const answeredFrom = statuses.length;
      provider.setFaults([{ kind, retryAfterS: 1 }]);
      try {
        const hint = { trackingId: order.trackingId, signature: '5'.repeat(87) };
        okOr503(await client.deposit(hint), 'deposit hint');
        assert.equal((await client.deposit(hint)).status, 503, 'the hint reads the chain');
        okOr503(await ops.get('/admin/v1/reconcile'), 'reconcile');
        assert.equal((await ops.get('/admin/v1/reconcile')).status, 503);
        okOr503(await ops.get('/admin/v1/treasury'), 'treasury');
        assert.equal((await ops.get('/admin/v1/treasury')).status, 503);
        okOr503(await client.quote(req), 'quote');
        const req2 = usdcQuote();
        const q2 = okOr503(await client.quote(req2), 'quote').body.quote;
        if (q2) okOr503(await client.order({ quote: q2, senderAddress: req2.senderAddress, recipientAddress: req2.recipientAddress }), 'order');
        okOr503(await client.refresh(order.trackingId), 'refresh');
        okOr503(await client.status(order.trackingId), 'status');
      } finally {
        provider.setFaults([]);
      }
      assert.ok((provider.outcomes.get(kind) ?? 0) > 0, `the provider gave ${kind}`);
      assert.deepEqual(statuses.slice(answeredFrom).filter((a) => a.status >= 500 && a.status !== 503), [], 'no 5xx but 503');
      const records = apiLog.slice(from);
      assert.ok(records.every((l) => l.level < 50), `error-level records: ${JSON.stringify(records.filter((l) => l.level >= 50)).slice(0, 2000)}`);
      assert.ok(!JSON.stringify(records).includes('FST_ERR_FAILED_ERROR_SERIALIZATION'));
      assert.ok(records.some((l) => l.msg === 'service error' || l.msg === 'chain unavailable'), 'the chain failures are logged');
    });
  }

  /** Asks `ask`, and how long its answer took in simulated time. */
  async function timed(ask: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; ms: number }> {
    const start = h.now();
    const res = await ask();
    return { res, ms: h.now() - start };
  }

  /** /readyz until it answers `status`, within `maxMs`, every answer at once (it reads kept state, never the chain). */
  async function readyzUntil(status: number, maxMs: number): Promise<ApiResponse> {
    return h.until(`/readyz ${status}`, async () => {
      const ready = await timed(() => ops.get('/readyz'));
      assert.ok(ready.ms < 1_000, `/readyz took ${ready.ms} ms`);
      return ready.res.status === status ? ready.res : null;
    }, maxMs, 100);
  }

  test('an RPC that never answers: /readyz 503 within its bound, a quote answered without waiting on it; both recover', async () => {
    expectOk(await readyzUntil(200, 30_000));
    provider.setFaults([{ kind: 'silent' }]);
    try {
      // A quote reads nothing on the chain (one flat network fee, docs/spec.md §9): it does not wait on the silent
      // RPC at all, while the inventory's reading is fresh enough (the next test refuses it once it is not).
      const quote = await timed(() => client.quote(usdcQuote()));
      expectOk(quote.res);
      assert.ok(quote.ms < RPC_TIMEOUT_MS, `quote took ${quote.ms} ms: it waited on the chain`);
      const details = expectError(await readyzUntil(503, READY_STALE_MS), 503, 'SERVICE_UNAVAILABLE').details;
      assert.deepEqual([details.store, details.chain], ['ok', 'unreachable'], JSON.stringify(details));
      assert.ok((provider.outcomes.get('silent') ?? 0) > 0, 'the provider kept silent');
    } finally {
      provider.setFaults([]);
    }
    await readyzUntil(200, READY_STALE_MS);
    expectOk(await client.quote(usdcQuote()));
  });

  test('a chain silent for longer than the inventory may be trusted: even a quote that needs no RPC answers 503 CHAIN_UNAVAILABLE; it recovers', async () => {
    // SOL to SOL: no recipient token account to look up, so only the pool inventory's age can refuse it.
    const req = { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: h.address(), recipientAddress: h.address() };
    expectOk(await client.quote(req));
    provider.setFaults([{ kind: 'silent' }]);
    try {
      // The bounds come from a reading that keeps failing to refresh: answered for a few seconds, then refused.
      expectOk(await client.quote(req));
      const refused = await h.until('quotes refused once the inventory is stale', async () => {
        const r = await client.quote(req);
        return r.status === 200 ? null : r;
      }, 30_000, 500);
      expectError(refused, 503, 'CHAIN_UNAVAILABLE');
      assert.equal(refused.headers.get('retry-after'), '5');
    } finally {
      provider.setFaults([]);
    }
    await h.until('quotes again once the inventory refreshes', async () => (await client.quote(req)).status === 200, 15_000, 500);
  });
});
