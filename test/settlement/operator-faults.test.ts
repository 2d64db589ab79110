/**
 * Issue 26, as an operator would run Hush (docs/spec.md §1): one API process (HUSH_ROLE=api) and two worker
 * processes (HUSH_ROLE=worker) on one PostgreSQL schema, all three reaching the chain's JSON-RPC only
 * through a fault-injecting proxy (src/localnet/rpc-fault-proxy.ts) that answers 503, stalls for seconds
 * (some past HUSH_RPC_TIMEOUT_MS), drops answers after the call ran and cuts connections before it ran,
 * from before the processes start. Their PubSub socket goes straight to the chain (SOLANA_WS_URL): the
 * proxy speaks HTTP only, and a provider's WebSocket is a separate endpoint anyway. Mid-run, worker B
 * dies by SIGKILL (HUSH_FAULT=payout-recorded: right after it recorded a signed payout it never sent; or,
 * if worker C recorded the first payout, the test SIGKILLs B then, with orders in flight) and the API is
 * SIGKILLed while the client polls orders and places more, then started again on the same port. The test's client
 * talks to the API directly and retries across the restart (test/support/retrying-client.ts); its
 * wallets and deposits talk to the chain directly. Every order must complete and be paid exactly once
 * (store and chain), every deposit be swept once, reconcile be clean, every answer be < 500 or a 503
 * with Retry-After, no process write a log record at error level, and every process start on its first
 * attempt. Skipped, with the reason, when PostgreSQL is unreachable. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import pg from 'pg';
import { startRpcFaultProxy, type FaultPlan, type RpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import type { Queryable } from '../../src/store/db.ts';
import { dropSchema, newSchemaName, POSTGRES_URL, postgresSkipReason } from '../support/databases.ts';
import { HIGH_RATE_LIMITS, spawnHush, type HushProcess } from '../support/hush-process.ts';
import { makeTempDir, pollUntil, removeDir, sleep, spawnLocalnet, type ChildLocalnet } from '../support/localnet.ts';
import { RetryingClient } from '../support/retrying-client.ts';
import { freePorts } from '../support/free-port.ts';
import {
  ASSETS,
  SOL,
  accountExists,
  assertHistory,
  assertPaidOnce,
  ataOf,
  balanceOf,
  chainAt,
  depositWithRefresh,
  jsonish,
  newWallet,
  placeOrder,
  successfulSignatures,
  waitForOrder,
  type AssetId,
  type Chain,
  type PlacedOrder,
} from '../support/settlement.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

/**
 * A deposit account is swept only once every transaction handed out for it is dead at finalized (150 +
 * 32 slots after its blockhash): at 100 ms slots that is ~18 s after the last order, the run's tail.
 */
const SLOT_MS = 100;
const ORDERS = 8;
const RPC_TIMEOUT_MS = 3_000;

/**
 * What the provider does to Hush's calls: each kind a few times for sure (the starts meet them), then at
 * random, about one request in thirteen. A start's funding is a few dozen calls retried as a whole with a
 * growing backoff, so much higher rates make a worker's start alone take most of a minute.
 */
const FAULTS: FaultPlan[] = [
  { kind: '503', times: 3 },
  { kind: 'stall', times: 2, stallMs: 2_000 },
  { kind: 'drop', methods: ['sendTransaction'], times: 2 },
  { kind: 'cut', times: 1 },
  { kind: '503', probability: 0.04 },
  { kind: 'stall', probability: 0.01, stallMs: 2_000 },
  { kind: 'stall', probability: 0.005, stallMs: 4_000 },
  { kind: 'drop', probability: 0.015 },
  { kind: 'cut', probability: 0.005 },
];

const alive = (p: HushProcess) => p.proc.exitCode === null && p.proc.signalCode === null;

describe('an API and two workers on PostgreSQL behind a faulty RPC; a worker and the API SIGKILLed', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  const dirs: string[] = [];
  const procs: HushProcess[] = [];
  let localnet: ChildLocalnet | undefined;
  let proxy: RpcFaultProxy | undefined;
  let schema: string | undefined;
  let pool: pg.Pool | undefined;

  after(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await proxy?.close();
    await localnet?.stop('SIGKILL');
    await pool?.end();
    if (schema) await dropSchema(schema).catch(() => {});
    for (const d of dirs) removeDir(d);
  });

  test('every order paid exactly once, reconcile clean, no 5xx but 503, no error log, no failed start', { timeout: 240_000 }, async (t) => {
    const started = Date.now();
    const diag = (m: string) => t.diagnostic(`${((Date.now() - started) / 1000).toFixed(1)} s: ${m}`);
    const chainDir = makeTempDir('hush-op-chain-');
    dirs.push(chainDir);
    localnet = await spawnLocalnet({ dataDir: chainDir, slotMs: SLOT_MS });
    // Printed just after the JSON-RPC line spawnLocalnet waits for: read it once it is there.
    for (const until = Date.now() + 10_000; !/Solana PubSub WebSocket at/.test(localnet.output()) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    const wsUrl = /Solana PubSub WebSocket at (\S+)/.exec(localnet.output())?.[1];
    assert.ok(wsUrl, `the chain reports its PubSub URL:\n${localnet.output()}`);
    const chain: Chain = chainAt(localnet.url);
    proxy = await startRpcFaultProxy(localnet.url, systemClock, systemRandom);
    proxy.setFaults(FAULTS);
    schema = newSchemaName();
    const adminToken = randomBytes(32).toString('base64url');
    // Fixed so the restarted API listens where the first one did (an operator's fixed ports); the ops port is
    // chosen too, not left to PORT + 1, which nothing checked was free.
    const [apiPort, apiOpsPort] = (await freePorts(2)) as [number, number];
    const common = {
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: schema,
      TREASURY_SEED: randomBytes(32).toString('hex'),
      // The API's own secret (docs/spec.md §10): it never holds the seed.
      HUSH_QUOTE_KEY: randomBytes(32).toString('hex'),
      SOLANA_RPC_URL: proxy.url,
      SOLANA_WS_URL: wsUrl,
      HUSH_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      LOCALNET_SLOT_MS: String(SLOT_MS),
      HUSH_SLOT_MS: String(SLOT_MS),
      
      
      HUSH_SWEEP_INTERVAL_S: '1',
      HUSH_ADMIN_TOKEN: adminToken,
      HUSH_RATE_LIMITS: HIGH_RATE_LIMITS,
    };
    // Each start must reach its ready line: spawnHush fails if the process exits on the way (a failed start).
    const spawnRole = async (role: 'api' | 'worker', label: string, extra: Record<string, string> = {}) => {
      const dataDir = makeTempDir('hush-op-');
      dirs.push(dataDir);
      const { TREASURY_SEED, ...apiEnv } = common;
      const p = await spawnHush({ ...(role === 'api' ? apiEnv : { ...apiEnv, TREASURY_SEED }), HUSH_ROLE: role, DATA_DIR: dataDir, ...(role === 'api' ? { PORT: String(apiPort), HUSH_OPS_PORT: String(apiOpsPort) } : { PORT: '0' }), ...extra }, { label });
      procs.push(p);
      return p;
    };
    const [api, b, c, solSender, usdcSender] = await Promise.all([
      spawnRole('api', 'API'),
      spawnRole('worker', 'worker B', { HUSH_FAULT: 'payout-recorded' }),
      spawnRole('worker', 'worker C'),
      newWallet(chain, { sol: 20n * SOL }),
      newWallet(chain, { sol: SOL, tokens: { usdc: 1_000_000_000n } }),
    ]);
    assert.equal(api.url, `http://127.0.0.1:${apiPort}`);
    assert.equal(b.url, null, 'a worker serves no API');
    for (const p of [api, b, c]) assert.equal(p.chainUrl, proxy.url, 'every process reaches the chain through the proxy');
    diag(`API, workers B and C started behind the faulty RPC: ${jsonish([...proxy.outcomes])}`);
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2, options: `-c search_path=${schema}` });
    const db: Queryable = {
      query: async (sql, params) => {
        const r = await pool!.query(sql, params as unknown[]);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      },
    };

    // A partner account through the admin API (no demo account when the chain is external).
    const admin = new RetryingClient(api.opsUrl, adminToken);
    const created = await admin.post('/admin/v1/accounts', { name: 'operator-faults' });
    assert.equal(created.status, 201, created.text);
    const client = new RetryingClient(api.url!, created.body.apiKey as string);

    // B dies mid-run: at its fault point if it records a payout first, else by the test's SIGKILL as soon
    // as C has recorded one (orders are in flight then, some perhaps claimed by B).
    const bDied = (async () => {
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
        if (!alive(b)) return 'killed itself right after recording a payout (HUSH_FAULT=payout-recorded)';
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE status IN ('sending', 'completed')`);
        if (rows[0]!.n > 0) {
          await sleep(50); // B's own kill lands right after its commit
          if (!alive(b)) return 'killed itself right after recording a payout (HUSH_FAULT=payout-recorded)';
          b.proc.kill('SIGKILL');
          return 'SIGKILLed by the test once worker C had recorded a payout';
        }
        await sleep(100);
      }
      throw new Error('no payout was recorded in 120 s, so worker B was never killed');
    })();
    bDied.catch(() => {}); // awaited below; a failure must not count as unhandled meanwhile

    const orders: { placed: PlacedOrder; recipient: Address; asset: AssetId }[] = [];
    const placeOne = async (i: number) => {
      const asset: AssetId = i % 2 === 0 ? 'sol' : 'usdc';
      const sender = asset === 'sol' ? solSender : usdcSender;
      const recipient = (await generateKeyPairSigner()).address;
      const amount = asset === 'sol' ? 50_000_000n + BigInt(i) * 1_000_000n : 5_000_000n + BigInt(i) * 100_000n;
      const placed = await placeOrder(client, {
        amount: amount.toString(),
        sourceAssetId: asset,
        destinationAssetId: asset,
        senderAddress: sender.address,
        recipientAddress: recipient,
        mode: i % 4 < 2 ? 'exact_in' : 'exact_out',
      });
      await depositWithRefresh(client, chain, placed, sender);
      orders.push({ placed, recipient, asset });
    };
    const half = ORDERS / 2;
    await Promise.all(Array.from({ length: half }, (_, i) => placeOne(i)));
    diag(`${half} orders placed and deposited`);

    // The API dies while the client polls the first half's status; the second half is placed while it is
    // down. Those calls are refused (or cut) until the new API listens on the same port, and asked again.
    let polling = true;
    const poller = (async () => {
      while (polling) for (const o of orders) await client.status(o.placed.trackingId);
    })();
    await sleep(200);
    assert.deepEqual(await api.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
    diag('API SIGKILLed while the client polls');
    const secondHalf = Promise.all(Array.from({ length: ORDERS - half }, (_, i) => placeOne(half + i)));
    const api2 = await spawnRole('api', 'API, restarted');
    assert.equal(api2.url, api.url, 'the new API listens where the old one did');
    diag('API restarted');
    await secondHalf;
    polling = false;
    await poller;
    diag(`all ${ORDERS} orders placed and deposited; ${client.unanswered} calls went unanswered while the API was down, and were asked again`);
    assert.ok(client.unanswered > 0, 'the client met the API down');
    diag(`worker B ${await bDied}`);
    assert.deepEqual(await b.exited, { code: null, signal: 'SIGKILL' });

    // C alone finishes everything (what B held, once its leases run out).
    for (const o of orders) {
      const rec = await waitForOrder(client, o.placed.trackingId, ['completed'], 90_000);
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
      assert.equal((await balanceOf(chain, o.recipient, ASSETS[o.asset])) ?? 0n, o.placed.amountOut, `${o.placed.trackingId}: recipient got exactly amountOut`);
      const rows = await assertPaidOnce(db, o.placed.trackingId, 'payout', o.placed.amountOut);
      assert.deepEqual(rows.map((r) => r.signature).sort(), rec.payouts.map((p: any) => p.signature).sort());
      const holding = ASSETS[o.asset].native ? o.recipient : await ataOf(o.recipient, ASSETS[o.asset].mint);
      assert.deepEqual((await successfulSignatures(chain, holding)).sort(), rows.map((r) => r.signature).sort(), `${o.placed.trackingId}: only its payouts credited the recipient`);
    }
    diag(`all ${orders.length} orders completed, each paid exactly once`);

    await pollUntil(async () => (await Promise.all(orders.map((o) => accountExists(chain, o.placed.depositAccount)))).every((x) => !x), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'every deposit swept',
    });
    // The account can be gone on chain a moment before the worker marks its sweep confirmed.
    const confirmedSweeps = async () =>
      (await db.query<{ items: { depositAccount: string }[] }>(`SELECT meta -> 'items' AS items FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed'`)).rows.flatMap((r) =>
        r.items.map((i) => i.depositAccount),
      );
    await pollUntil(async () => { const done = new Set(await confirmedSweeps()); return orders.every((o) => done.has(o.placed.depositAccount)); }, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'every sweep marked confirmed',
    });
    const sweptAccounts = await confirmedSweeps();
    for (const o of orders) assert.equal(sweptAccounts.filter((d) => d === o.placed.depositAccount).length, 1, `${o.placed.trackingId}: swept exactly once`);
    let report: any = null;
    await pollUntil(
      async () => {
        const r = await admin.get('/admin/v1/reconcile');
        report = r.body;
        return r.status === 200 && report.ok === true && report.pendingTransactions === 0;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'a clean reconcile' },
    ).catch((e: Error) => assert.fail(`${e.message}; last report ${jsonish(report)}`));
    diag('reconcile clean');

    diag(`RPC faults injected: ${jsonish([...proxy.outcomes])}`);
    for (const kind of ['503', 'stall', 'drop', 'cut']) assert.ok((proxy.outcomes.get(kind) ?? 0) > 0, `the proxy injected ${kind}`);
    const seen = [...client.seen, ...admin.seen];
    diag(`the client saw ${seen.length} answers, ${seen.filter((s) => s.status === 503).length} of them 503`);
    assert.deepEqual([...client.violations, ...admin.violations], [], 'every answer met the API checks');
    assert.deepEqual(seen.filter((s) => s.status >= 500 && s.status !== 503), [], 'no 5xx but 503');
    assert.deepEqual(seen.filter((s) => s.status === 503 && !s.retryAfter), [], 'every 503 carries Retry-After');
    for (const [label, p] of [['API', api], ['worker B', b], ['worker C', c], ['restarted API', api2]] as const) {
      assert.deepEqual(p.errorLines(), [], `${label}: no log record at error level`);
    }
    assert.ok(alive(c) && alive(api2), 'worker C and the restarted API still run');
    const stopped = await Promise.all([c.stop('SIGTERM'), api2.stop('SIGTERM')]);
    assert.deepEqual(stopped, [{ code: 0, signal: null }, { code: 0, signal: null }], 'C and the new API shut down cleanly');
    diag('done');
  });
});
