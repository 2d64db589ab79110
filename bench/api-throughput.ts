/**
 * bench:api — throughput and latency of the partner API next to baselines measured in the same run:
 *   tokens, status  vs a bare Fastify GET with a response schema
 *   quote           vs the bare GET (throughput) and a POST echo with the quote's schemas (p99)
 *   swap quote      (usdc→sol, same connections) vs the send quote (usdc→usdc): target ≥ 0.80 of its throughput
 *   order creation  vs a raw insert loop on the same database engine (PGlite, and PostgreSQL if reachable)
 * plus the share of blockhash life left in handed-out transactions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORDERS = Number(process.env.BENCH_ORDERS ?? 6000);

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function waitLine(child: ChildProcess, match: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) if (match(line)) return resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
}

function start(script: string, env: Record<string, string>, profile = false): ChildProcess {
  // BENCH_PROFILE=<dir>: a CPU profile of the process under test (written when it exits).
  const prof = profile && process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  return spawn(process.execPath, [...prof, '--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function load(opts: autocannon.Options): Promise<Run> {
  const r = await autocannon({ connections: 50, duration: SECONDS, ...opts });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors + r.timeouts };
}

const fmt = (r: Run) => `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1).padStart(5)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms${r.errors ? `  (${r.errors} non-2xx/errors)` : ''}`;

async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function benchEngine(engine: 'pglite' | 'postgres', chainUrl: string): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hush-bench-api-'));
  const schema = `hush_bench_${process.pid}`;
  const env: Record<string, string> = { DATA_DIR: dataDir, SOLANA_RPC_URL: chainUrl, HUSH_QUOTE_TTL_S: '900' };
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

    const bare = await load({ url: `${info.baselineUrl}/bare` });
    const echo = await load({ url: `${info.baselineUrl}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: quoteBody });
    const tokens = await load({ url: `${info.hushUrl}/transfer/v1/tokens`, headers: auth });
    const quotes = await load({ url: `${info.hushUrl}/transfer/v1/quote`, method: 'POST', headers: auth, body: quoteBody });
    const swapQuotes = await load({ url: `${info.hushUrl}/transfer/v1/quote`, method: 'POST', headers: auth, body: swapQuoteBody });

    const firstOrder = await fetch(`${info.hushUrl}/transfer/v1/order`, { method: 'POST', headers: auth, body: JSON.stringify({ quote: await quote(), senderAddress: info.sender, recipientAddress: info.recipient }) });
    const trackingId = ((await firstOrder.json()) as { order: { trackingId: string } }).order.trackingId;
    const status = await load({ url: `${info.hushUrl}/transfer/v1/status/${trackingId}`, headers: auth });

    // Orders: one fresh quote per order (a quote backs at most one order), 100 connections, after a
    // warm-up of ORDERS_WARMUP orders (JIT, pools of deposit identities), as the other routes had theirs.
    const ORDERS_WARMUP = 500;
    const bodies: string[] = [];
    while (bodies.length < ORDERS + ORDERS_WARMUP) {
      const batch = await Promise.all(Array.from({ length: 50 }, quote));
      for (const q of batch) bodies.push(JSON.stringify({ quote: q, senderAddress: info.sender, recipientAddress: info.recipient }));
    }
    let next = 0;
    // A run of a fixed number of requests ends at the next sample tick: 10 ms ticks, not 1 s, so that its
    // duration is the time the orders took (6000 orders in 2.6 s otherwise read as 3.01 s).
    const placeOrders = (amount: number) =>
      autocannon({
        url: info.hushUrl,
        connections: 100,
        amount,
        sampleInt: 10,
        requests: [{ method: 'POST', path: '/transfer/v1/order', headers: auth, setupRequest: (req) => ({ ...req, body: bodies[next++] }) }],
      });
    await placeOrders(ORDERS_WARMUP);
    const ordersRun = await placeOrders(ORDERS);
    // Orders created over the run's duration: autocannon's requests.average is a mean of per-tick samples,
    // which a fixed number of requests finishing mid-tick skews.
    const orders: Run = { rps: ordersRun['2xx'] / ordersRun.duration, p50: ordersRun.latency.p50, p99: ordersRun.latency.p99, errors: ordersRun.non2xx + ordersRun.errors };
    const raw = (await (await fetch(`${info.baselineUrl}/raw-insert?ms=${SECONDS * 1000}&workers=${engine === 'pglite' ? 4 : 16}`, { method: 'POST' })).json()) as { count: number; seconds: number; p50: number; p99: number };
    const rawRps = raw.count / raw.seconds;

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
    row('GET /tokens', tokens, `   ratio ${(tokens.rps / bare.rps).toFixed(2)} × bare`);
    row('GET /status', status, `   ratio ${(status.rps / bare.rps).toFixed(2)} × bare (target ≥ 0.50)`);
    row('POST /quote', quotes, `   ratio ${(quotes.rps / bare.rps).toFixed(2)} × bare (target ≥ 0.35); p99 ${(quotes.p99 / echo.p99).toFixed(2)} × echo (target ≤ 1.5)`);
    row('POST /quote swap usdc→sol', swapQuotes, `   ratio ${(swapQuotes.rps / quotes.rps).toFixed(2)} × send quote (target ≥ 0.80)`);
    console.log(`  ${'baseline: raw insert loop'.padEnd(30)} ${rawRps.toFixed(0).padStart(7)} ins/s  p50 ${raw.p50.toFixed(1).padStart(5)} ms  p99 ${raw.p99.toFixed(1).padStart(6)} ms`);
    row('POST /order (100 conns)', orders, `   ratio ${(orders.rps / rawRps).toFixed(2)} × raw insert (target ≥ 0.45); p99 target ≤ 25 ms`);
    console.log(`  blockhash life left at hand-out: min ${(minLife * 100).toFixed(1)} %, mean ${((life.reduce((a, b) => a + b, 0) / life.length) * 100).toFixed(1)} % (target ≥ 75 %)`);
    const checks = [
      status.rps / bare.rps >= 0.5,
      quotes.rps / bare.rps >= 0.35,
      quotes.p99 <= 1.5 * echo.p99,
      swapQuotes.rps >= 0.8 * quotes.rps,
      quotes.errors === 0 && swapQuotes.errors === 0,
      orders.rps / rawRps >= 0.45,
      orders.p99 <= 25,
      minLife >= 0.75,
    ];
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
try {
  const line = await waitLine(chain, (l) => l.includes('JSON-RPC at'));
  const chainUrl = /JSON-RPC at (\S+)/.exec(line)![1]!;
  console.log(`bench:api  ${SECONDS} s per run, autocannon 50 connections (orders: 100), chain in a separate process`);
  // BENCH_ENGINE=pglite|postgres runs one engine only.
  const only = process.env.BENCH_ENGINE;
  if (only !== 'postgres') await benchEngine('pglite', chainUrl);
  if (only === 'pglite') console.log('\n[postgres] skipped: BENCH_ENGINE=pglite');
  else if (await postgresReachable()) await benchEngine('postgres', chainUrl);
  else console.log(`\n[postgres] skipped: ${PG_URL} not reachable`);
} finally {
  await stop(chain);
  rmSync(chainDir, { recursive: true, force: true });
}
