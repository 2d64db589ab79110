/**
 * bench:api — throughput and latency of the partner API next to baselines measured in the same run:
 *   tokens, status  vs a bare Fastify GET with a response schema
 *   quote           vs the bare GET (throughput) and a POST echo with the quote's schemas (p99)
 *   swap quote      (usdc→sol, same connections) vs the send quote (usdc→usdc): target ≥ 0.80 of its throughput
 *   order creation  vs a raw insert loop on the same database engine (PGlite, and PostgreSQL if reachable)
 *                   and next to Hush's own order insert statement alone (what the store allows before HTTP)
 * plus the share of blockhash life left in handed-out transactions, and the server's CPU per request.
 * RPC cost: the API reaches the chain through a counting JSON-RPC proxy (its own process, bench/support/
 * rpc-cost.ts); printed are its calls per idle second and per order (its quote and the order). The
 * baselines make no RPC calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { machineBusyMs } from './support/cpu-time.ts';
import { closedLoop, pacedOrders, type Run } from './support/http-load.ts';
import { orderRun } from './support/order-run.ts';
import { localnetUrls, start, stop, waitLine } from './support/processes.ts';
import { idle, overheadLine, perUnit, proxyOverhead, since, startRpcProxy, totalCalls, type RpcCounts, type RpcProxy } from './support/rpc-cost.ts';
import { median, roundsRatio } from './support/stats.ts';

import { screeningCostLines } from './support/screening-cost.ts';
import { postgresReachable } from './support/postgres-reachable.ts';
import { reportAgainstBaseline, type Figure } from './support/baseline-compare.ts';
import { wakeCostLine } from './support/wake-cost.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORDERS = Number(process.env.BENCH_ORDERS ?? 6000);
/** Interleaved rounds of the route measurements, and of orders next to their insert baselines. */
const ROUNDS = positiveInteger('BENCH_ROUNDS', 3);
const ORDER_ROUNDS = positiveInteger('BENCH_ORDER_ROUNDS', 3);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
/** BENCH_PACED_RATE: the paced order run's rate (orders/s); unset, half the closed loop's throughput. Fixed, two commits' paced p99s compare. */
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 0);
/** BENCH_PROFILE_PACED=1 (with BENCH_PROFILE_WINDOW): the order profile brackets the paced run instead of the closed loop's first round. */
const PROFILE_PACED = Boolean(process.env.BENCH_PROFILE_PACED);
/** Each engine's headline figures, compared at the end with bench/baselines/api.json (issue 56). */
const figures: Figure[] = [];

function positiveInteger(name: string, fallback: number): number {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return n;
}

const load = (pid: number | undefined, opts: autocannon.Options): Promise<Run> => closedLoop(pid, SECONDS, opts);

const fmt = (r: Run) =>
  `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms${r.cpuUs === undefined ? '' : `  cpu ${r.cpuUs.toFixed(0).padStart(3)} µs/req`}${r.errors ? `  (${r.errors} non-2xx/errors)` : ''}`;

async function benchEngine(engine: 'pglite' | 'postgres', chain: { url: string; wsUrl: string; proxy: RpcProxy }): Promise<boolean> {
  const chainUrl = chain.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'hush-bench-api-'));
  const schema = `hush_bench_${process.pid}`;
  // The API's calls go through the counting proxy; PubSub (not behind it) is named, not derived from its address.
  // One account places every measured order and funds none: no cap on its open unfunded orders (docs/spec.md §7).
  // Its 100 connections all come from 127.0.0.1: above the default cap of 64 per address.
  const env: Record<string, string> = { DATA_DIR: dataDir, SOLANA_RPC_URL: chain.proxy.url, SOLANA_WS_URL: chain.wsUrl, HUSH_QUOTE_TTL_S: '900', HUSH_MAX_OPEN_ORDERS: '10000000', HUSH_MAX_CONNECTIONS_PER_IP: '1024' };
  if (engine === 'postgres') Object.assign(env, { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema });
  const server = start('bench/support/api-bench-server.ts', env, true);
  let pass = true;
  try {
    const info = JSON.parse(await waitLine(server, (l) => l.startsWith('{'))) as { hushUrl: string; baselineUrl: string; apiKey: string; sender: string; recipient: string };
    const auth = { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' };
    const quoteBody = JSON.stringify({ amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: info.sender, recipientAddress: info.recipient });
    const swapQuoteBody = JSON.stringify({ amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'sol', senderAddress: info.sender, recipientAddress: info.recipient });
    const quoteWith = async (body: string) => {
      const r = await fetch(`${info.hushUrl}/transfer/v1/quote`, { method: 'POST', headers: auth, body });
      const json = (await r.json()) as { quote?: unknown; error?: { code: string } };
      if (!json.quote) throw new Error(`quote failed: ${JSON.stringify(json.error)}`);
      return json.quote;
    };
    const quote = () => quoteWith(quoteBody);
    // The bench server funds the treasury; quotes succeed once the inventory refresh has seen the pools.
    for (let i = 0; ; i++) {
      try {
        await quote();
        await quoteWith(swapQuoteBody);
        break;
      } catch (e) {
        if (i >= 150) throw e;
        await new Promise((res) => setTimeout(res, 200));
      }
    }
    // Warm-up: caches (recipient token account, blockhash, prices) and JIT.
    for (let i = 0; i < 200; i++) await quote();
    for (let i = 0; i < 200; i++) await quoteWith(swapQuoteBody);
    // Idle: started, funded and warmed up, nothing in flight.
    const idleRpc = await idle(chain.proxy, IDLE_S);

    const firstOrder = await fetch(`${info.hushUrl}/transfer/v1/order`, { method: 'POST', headers: auth, body: JSON.stringify({ quote: await quote(), senderAddress: info.sender, recipientAddress: info.recipient }) });
    const trackingId = ((await firstOrder.json()) as { order: { trackingId: string } }).order.trackingId;

    // ROUNDS interleaved rounds of every route next to its baselines: a ratio is taken within a round and
    // the median round is reported, so a noisy neighbour slowing one run does not decide a target.
    const measure = (opts: autocannon.Options) => load(server.pid, opts);
    const routes = {
      bare: { url: `${info.baselineUrl}/bare` },
      echo: { url: `${info.baselineUrl}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: quoteBody },
      tokens: { url: `${info.hushUrl}/transfer/v1/tokens`, headers: auth },
      quotes: { url: `${info.hushUrl}/transfer/v1/quote`, method: 'POST', headers: auth, body: quoteBody },
      swapQuotes: { url: `${info.hushUrl}/transfer/v1/quote`, method: 'POST', headers: auth, body: swapQuoteBody },
      status: { url: `${info.hushUrl}/transfer/v1/status/${trackingId}`, headers: auth },
    } satisfies Record<string, autocannon.Options>;
    const rounds: Record<keyof typeof routes, Run>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const round = {} as Record<keyof typeof routes, Run>;
      for (const [name, opts] of Object.entries(routes)) round[name as keyof typeof routes] = await measure(opts);
      rounds.push(round);
    }
    /** A ratio's median over the rounds, with its range when there are several. */
    const ratio = (f: (r: Record<keyof typeof routes, Run>) => number) => roundsRatio(rounds.map(f));
    /** The figures shown for a route: the median of each over the rounds. */
    const medianRun = (name: keyof typeof routes): Run => {
      const runs = rounds.map((r) => r[name]);
      const cpu = runs.map((r) => r.cpuUs).filter((c): c is number => c !== undefined);
      return {
        rps: median(runs.map((r) => r.rps)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        errors: runs.reduce((n, r) => n + r.errors, 0),
        ...(cpu.length === runs.length ? { cpuUs: median(cpu) } : {}),
      };
    };
    // BENCH_PROFILE_WINDOW=<dir>: one extra quote run and (below) the first order round under a CPU profile
    // of the API process (files in <dir>, kept out of git), for docs/performance.md's top costs.
    const profiling = Boolean(process.env.BENCH_PROFILE_WINDOW);
    const profile = async (phase: 'start' | 'stop', label = '') => {
      if (!profiling) return;
      const r = (await (await fetch(`${info.baselineUrl}/profile/${phase}`, { method: 'POST' })).json()) as { file?: string };
      if (r.file) console.log(`  [${engine}] CPU profile of ${label}: ${r.file}`);
    };
    if (profiling) {
      await profile('start');
      await measure(routes.quotes);
      await profile('stop', 'POST /quote');
    }
    const [bare, echo, tokens, quotes, swapQuotes, status] = (['bare', 'echo', 'tokens', 'quotes', 'swapQuotes', 'status'] as const).map(medianRun) as [Run, Run, Run, Run, Run, Run];
    const tokensRatio = ratio((r) => r.tokens.rps / r.bare.rps);
    const statusRatio = ratio((r) => r.status.rps / r.bare.rps);
    const quoteRatio = ratio((r) => r.quotes.rps / r.bare.rps);
    const quoteP99 = ratio((r) => r.quotes.p99 / r.echo.p99);
    const swapRatio = ratio((r) => r.swapQuotes.rps / r.quotes.rps);
    const quoteErrors = rounds.reduce((n, r) => n + r.quotes.errors + r.swapQuotes.errors, 0);

    // Orders: one fresh quote per order (a quote backs at most one order), 100 connections, after a
    // warm-up of ORDERS_WARMUP orders (JIT, pools of deposit identities), as the other routes had theirs.
    const ORDERS_WARMUP = 500;
    const orderBodies = async (n: number) => {
      const out: string[] = [];
      while (out.length < n) {
        const batch = await Promise.all(Array.from({ length: 50 }, quote));
        for (const q of batch) out.push(JSON.stringify({ quote: q, senderAddress: info.sender, recipientAddress: info.recipient }));
      }
      return out;
    };
    const runOrders = (bodies: string[], warmup: number, count: number) => orderRun({ pid: server.pid, url: `${info.hushUrl}/transfer/v1/order`, headers: auth, bodies, warmup, count, databaseServer: engine === 'postgres' });
    // Machine CPU per operation (every process: Hush and its threads, the database server, the load
    // generator): on two cores the order ratio is bounded by how these compare, whatever the API does.
    const perOp = (before: number | null, after: number | null, n: number) => (before === null || after === null ? undefined : ((after - before) * 1000) / n);
    type Inserts = { count: number; seconds: number; p50: number; p99: number; machineUs?: number };
    const inserts = async (path: string): Promise<Inserts> => {
      const before = machineBusyMs();
      const r = (await (await fetch(`${info.baselineUrl}${path}`, { method: 'POST' })).json()) as Inserts;
      const machineUs = perOp(before, machineBusyMs(), r.count);
      return machineUs === undefined ? r : { ...r, machineUs };
    };
    // Orders, the raw insert loop and Hush's own insert statement alone, interleaved in ORDER_ROUNDS
    // rounds: each ratio is taken within its round and the median round reported, as for the routes.
    let pacedRate = 0;
    let paced: Run | undefined;
    type LoopDelay = { p50?: number; p99?: number; max?: number; gc?: Record<string, { pauses: number; totalMs: number; maxMs: number }>; survival?: { beforeKb: number; survivedKb: number; promotedKb: number } };
    let pacedLoop: LoopDelay = {};
    const orderRounds: { orders: Run & { machineUs?: number }; raw: Inserts; batched: Inserts }[] = [];
    let orderRpc: { counts: RpcCounts; seconds: number } | undefined;
    for (let i = 0; i < ORDER_ROUNDS; i++) {
      // The first round's calls, its quotes included: what an order costs in RPC calls.
      const rpc0 = await chain.proxy.counts();
      const rpcT0 = performance.now();
      const bodies = await orderBodies(ORDERS + ORDERS_WARMUP);
      if (i === 0 && !PROFILE_PACED) await profile('start');
      const closed = await runOrders(bodies, ORDERS_WARMUP, ORDERS);
      if (i === 0 && !PROFILE_PACED) await profile('stop', `POST /order (${ORDERS + ORDERS_WARMUP} orders, 100 conns)`);
      if (i === 0) orderRpc = { counts: since(await chain.proxy.counts(), rpc0), seconds: (performance.now() - rpcT0) / 1000 };
      const machineUs = perOp(closed.machineAtStart, closed.machineAtEnd, closed.measured);
      if (i === 0) {
        // 100 connections offered half that throughput: the latency of orders when Hush is not the
        // bottleneck (at full load, latency is queueing: see the mean printed below). Before the insert
        // baselines add their rows, so the table is as the closed run left it.
        pacedRate = PACED_RATE > 0 ? PACED_RATE : Math.max(1, Math.floor(closed.result.rps / 2));
        const pacedBodies = await orderBodies(pacedRate * SECONDS + 200);
        await (await fetch(`${info.baselineUrl}/loop-delay/start`, { method: 'POST' })).arrayBuffer();
        if (PROFILE_PACED) await profile('start');
        paced = await pacedOrders(info.hushUrl, auth, pacedBodies, 200, pacedRate, server.pid);
        if (PROFILE_PACED) await profile('stop', `POST /order paced at ${pacedRate}/s (${pacedBodies.length} orders)`);
        pacedLoop = (await (await fetch(`${info.baselineUrl}/loop-delay/stop`, { method: 'POST' })).json()) as LoopDelay;
      }
      const raw = await inserts(`/raw-insert?ms=${SECONDS * 1000}&workers=${engine === 'pglite' ? 4 : 16}`);
      const batched = await inserts(`/insert-batched?ms=${SECONDS * 1000}&callers=100`);
      orderRounds.push({ orders: machineUs === undefined ? closed.result : { ...closed.result, machineUs }, raw, batched });
    }
    const rps = (r: Inserts) => r.count / r.seconds;
    const orderRatio = roundsRatio(orderRounds.map((r) => r.orders.rps / rps(r.raw)));
    const batchedRatio = roundsRatio(orderRounds.map((r) => rps(r.batched) / rps(r.raw)));
    /** The median over the order rounds of a figure every round has (undefined without /proc). */
    const mid = (f: (r: (typeof orderRounds)[number]) => number | undefined): number | undefined => {
      const v = orderRounds.map(f).filter((x): x is number => x !== undefined);
      return v.length === orderRounds.length ? median(v) : undefined;
    };
    const orders: Run = {
      rps: mid((r) => r.orders.rps)!,
      p50: mid((r) => r.orders.p50)!,
      p99: mid((r) => r.orders.p99)!,
      errors: orderRounds.reduce((n, r) => n + r.orders.errors, 0),
      ...(mid((r) => r.orders.cpuUs) === undefined ? {} : { cpuUs: mid((r) => r.orders.cpuUs)! }),
      ...(mid((r) => r.orders.loopCpuUs) === undefined ? {} : { loopCpuUs: mid((r) => r.orders.loopCpuUs)! }),
      ...(mid((r) => r.orders.databaseCpuUs) === undefined ? {} : { databaseCpuUs: mid((r) => r.orders.databaseCpuUs)! }),
    };
    const insertsLine = (r: (i: (typeof orderRounds)[number]) => Inserts) => {
      const machine = mid((i) => r(i).machineUs);
      return `${mid((i) => rps(r(i)))!.toFixed(0).padStart(7)} ins/s  p50 ${mid((i) => r(i).p50)!.toFixed(1).padStart(5)} ms  p99 ${mid((i) => r(i).p99)!.toFixed(1).padStart(6)} ms${machine === undefined ? '' : `  machine cpu ${machine.toFixed(0)} µs/op`}`;
    };
    const orderMachine = mid((r) => r.orders.machineUs);

    // Blockhash life left in handed-out transactions, sampled over 16 s (longer than the cache's max age).
    const life: number[] = [];
    for (let i = 0; i < 32; i++) {
      const r = await fetch(`${info.hushUrl}/transfer/v1/order`, { method: 'POST', headers: auth, body: JSON.stringify({ quote: await quote(), senderAddress: info.sender, recipientAddress: info.recipient }) });
      const expiresAt = ((await r.json()) as { order: { blockhashExpiresAtSlot: number } }).order.blockhashExpiresAtSlot;
      const slotRes = await fetch(chainUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'processed' }] }) });
      const slot = ((await slotRes.json()) as { result: number }).result;
      life.push((expiresAt - slot) / 150);
      await new Promise((res) => setTimeout(res, 500));
    }
    const minLife = Math.min(...life);

    const row = (label: string, r: Run, extra = '') => console.log(`  ${label.padEnd(30)} ${fmt(r)}${extra}`);
    console.log(`\n[${engine}]`);
    row('baseline: bare GET (schema)', bare);
    row('baseline: POST echo (quote schemas)', echo);
    row('GET /tokens', tokens, `   ratio ${tokensRatio.text} × bare`);
    row('GET /status', status, `   ratio ${statusRatio.text} × bare (target ≥ 0.50)`);
    row('POST /quote', quotes, `   ratio ${quoteRatio.text} × bare (target ≥ 0.45); p99 ${quoteP99.text} × echo (target ≤ 1.5)`);
    row('POST /quote swap usdc→sol', swapQuotes, `   ratio ${swapRatio.text} × send quote (target ≥ 0.80)`);
    console.log(`  ${'baseline: raw insert loop'.padEnd(30)} ${insertsLine((r) => r.raw)}   (${engine === 'pglite' ? 4 : 16} loops of single-row INSERTs)`);
    console.log(`  ${"Hush's order insert alone".padEnd(30)} ${insertsLine((r) => r.batched)}   ratio ${batchedRatio.text} × raw insert (its statement, batched, from 100 callers; no HTTP, no transaction)`);
    row('POST /order (100 conns)', orders, `${orderMachine === undefined ? '' : `  machine cpu ${orderMachine.toFixed(0)} µs/op`}   ratio ${orderRatio.text} × raw insert (target ≥ 0.45); cpu target ≤ 600 µs/order`);
    // Little's law: 100 connections that each wait for their answer wait 100 / throughput on average.
    const needed = 100 / 0.025;
    const rawMid = mid((r) => rps(r.raw))!;
    const batchedMid = mid((r) => rps(r.batched))!;
    console.log(`  ${''.padEnd(30)} mean latency at this throughput (100 conns / orders per s): ${(100_000 / orders.rps).toFixed(1)} ms`);
    console.log(`  ${''.padEnd(30)} a p99 ≤ 25 ms needs a mean below it: ≥ ${needed} orders/s = ${(needed / rawMid).toFixed(2)} × the raw insert loop, ${(needed / batchedMid).toFixed(2)} × the order insert alone`);
    // The process also plays the worker's part (the deposit identities, derived on a thread of their own).
    if (orders.cpuUs !== undefined && orders.loopCpuUs !== undefined) {
      console.log(`  ${''.padEnd(30)} of which the event-loop thread (HTTP, the order, the store's statements) ${orders.loopCpuUs.toFixed(0)} µs/order; other threads (the deposit-identity derivation a worker does, GC and compiler helpers) ${(orders.cpuUs - orders.loopCpuUs).toFixed(0)} µs/order`);
    }
    // PGlite's statements run in the API's process, PostgreSQL's in the server's: with it, the engines compare.
    const withDatabase = engine === 'pglite' ? orders.cpuUs : orders.cpuUs !== undefined && orders.databaseCpuUs !== undefined ? orders.cpuUs + orders.databaseCpuUs : undefined;
    if (engine === 'postgres' && withDatabase !== undefined) {
      console.log(`  ${''.padEnd(30)} and in the PostgreSQL server's processes ${orders.databaseCpuUs!.toFixed(0)} µs/order: ${withDatabase.toFixed(0)} µs/order with the database (PGlite's order CPU includes its database)`);
    }
    row(`POST /order paced ${pacedRate}/s`, paced!, '   (open loop at half the throughput above, up to 100 conns: latency when Hush is not saturated; p99 target ≤ 25 ms)');
    if (paced!.loopCpuUs !== undefined) {
      console.log(`  ${''.padEnd(30)} of which the event-loop thread ${paced!.loopCpuUs.toFixed(0)} µs/order: busy ${((paced!.loopCpuUs * pacedRate) / 10_000).toFixed(0)} % of the time at this rate (near 100 %, a tail is queueing)`);
    }
    if (pacedLoop.p99 !== undefined) console.log(`  ${''.padEnd(30)} the API process's event loop meanwhile: delay p50 ${pacedLoop.p50!.toFixed(1)} ms, p99 ${pacedLoop.p99.toFixed(1)} ms, max ${pacedLoop.max!.toFixed(1)} ms`);
    const gc = pacedLoop.gc;
    const gcKinds = Object.entries(gc ?? {}).map(([kind, k]) => `${kind} ${k.pauses}× (${k.totalMs.toFixed(0)} ms in all, the longest ${k.maxMs.toFixed(1)} ms)`);
    if (gc) console.log(`  ${''.padEnd(30)} its garbage collector's pauses meanwhile: ${gcKinds.join(', ') || 'none'}`);
    const sv = pacedLoop.survival;
    if (sv) console.log(`  ${''.padEnd(30)} per scavenge: ${(sv.beforeKb / 1024).toFixed(1)} MB young, of which ${(sv.survivedKb / 1024).toFixed(1)} MB stayed young and ${(sv.promotedKb / 1024).toFixed(1)} MB moved to the old generation`);
    console.log(`  blockhash life left at hand-out: min ${(minLife * 100).toFixed(1)} %, mean ${((life.reduce((a, b) => a + b, 0) / life.length) * 100).toFixed(1)} % (target ≥ 75 %)`);
    const idleRate = totalCalls(idleRpc.counts) / idleRpc.seconds;
    const made = ORDERS + ORDERS_WARMUP;
    console.log(`  RPC calls of the API through the counting proxy (each call of a batch counts; the baselines make none):`);
    const [idleHead, idleDetail] = perUnit(idleRpc.counts, idleRpc.seconds, 's');
    const [orderHead, orderDetail] = perUnit(orderRpc!.counts, made, 'order');
    const aboveIdle = (totalCalls(orderRpc!.counts) - idleRate * orderRpc!.seconds) / made;
    console.log(`  ${`idle (${idleRpc.seconds.toFixed(0)} s)`.padEnd(30)} ${idleHead} (target ≤ 1 /s ${idleRate <= 1 ? 'PASS' : 'MISS'}); ${idleDetail}`);
    console.log(`  ${'per order, its quote included'.padEnd(30)} ${orderHead} (${totalCalls(orderRpc!.counts)} calls for ${made} orders in ${orderRpc!.seconds.toFixed(1)} s, ${Math.max(0, aboveIdle).toFixed(2)} per order above the idle rate); ${orderDetail}`);
    const checks = [
      statusRatio.median >= 0.5,
      quoteRatio.median >= 0.45,
      quoteP99.median <= 1.5,
      swapRatio.median >= 0.8,
      quoteErrors === 0,
      orderRatio.median >= 0.45,
      orders.cpuUs === undefined || orders.cpuUs <= 600,
      paced!.p99 <= 25,
      minLife >= 0.75,
    ];
    const f = (name: string, value: number | undefined, unit: string, better: Figure['better']) => {
      if (value !== undefined && Number.isFinite(value)) figures.push({ name: `${engine} ${name}`, value, unit, better });
    };
    f('quote / bare (req/s ratio)', quoteRatio.median, '×', 'higher');
    f('quote p99 / echo p99', quoteP99.median, '×', 'lower');
    f('quote cpu', quotes.cpuUs, 'µs/req', 'lower');
    f('swap quote / send quote', swapRatio.median, '×', 'higher');
    f('status / bare', statusRatio.median, '×', 'higher');
    f('tokens / bare', tokensRatio.median, '×', 'higher');
    f('order / raw insert', orderRatio.median, '×', 'higher');
    f('order cpu', orders.cpuUs, 'µs/order', 'lower');
    f('order cpu, event-loop thread', orders.loopCpuUs, 'µs/order', 'lower');
    f('order cpu with the database', withDatabase, 'µs/order', 'lower');
    f('order paced p99', paced!.p99, 'ms', 'lower');
    f('order paced cpu, event-loop thread', paced!.loopCpuUs, 'µs/order', 'lower');
    f('RPC calls per idle s', idleRate, '/s', 'lower');
    f('RPC calls per order above idle', Math.max(0, aboveIdle), '/order', 'lower');
    pass = checks.every(Boolean);
    console.log(`  targets: ${checks.filter(Boolean).length}/${checks.length} met`);
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
  }
  return pass;
}

const chainDir = mkdtempSync(join(tmpdir(), 'hush-bench-chain-'));
const chain = start('src/cli/localnet.ts', { DATA_DIR: chainDir, LOCALNET_PORT: '0' });
let proxy: RpcProxy | undefined;
try {
  const { url: chainUrl, wsUrl } = await localnetUrls(chain);
  proxy = await startRpcProxy(chainUrl);
  const target = { url: chainUrl, wsUrl, proxy };
  console.log(`bench:api  ${SECONDS} s per run, ${ROUNDS} interleaved rounds (median shown), autocannon 50 connections (orders: 100, one run), chain in a separate process`);
  console.log(`  ${overheadLine(await proxyOverhead(chainUrl, proxy.url))}`);
  console.log(`  ${await wakeCostLine()}`);
  // BENCH_ENGINE=pglite|postgres runs one engine only.
  const only = process.env.BENCH_ENGINE;
  if (only !== 'postgres') await benchEngine('pglite', target);
  if (only === 'pglite') console.log('\n[postgres] skipped: BENCH_ENGINE=pglite');
  else if (await postgresReachable(PG_URL)) await benchEngine('postgres', target);
  else console.log(`\n[postgres] skipped: ${PG_URL} not reachable`);
  console.log('');
  const conditions = `BENCH_SECONDS=${SECONDS} BENCH_ROUNDS=${ROUNDS} BENCH_ORDER_ROUNDS=${ORDER_ROUNDS} BENCH_ORDERS=${ORDERS}${PACED_RATE ? ` BENCH_PACED_RATE=${PACED_RATE}` : ''}, ${only ?? 'both engines'}`;
  reportAgainstBaseline('api', figures, conditions);
  console.log('');
  // After the comparison: a failure here (it has happened: the per-account screening limit) costs only these lines.
  try {
    for (const line of await screeningCostLines()) console.log(`  ${line}`);
  } catch (e) {
    console.log(`  screening cost per quote: not measured (${(e as Error).message})`);
  }
} finally {
  await proxy?.stop();
  await stop(chain);
  rmSync(chainDir, { recursive: true, force: true });
}
