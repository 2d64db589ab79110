/**
 * The process under test for bench:api: a Hush API (role api, against an external chain) plus, in the
 * same process, the baselines — a bare Fastify GET with a response schema, a POST echo with the quote's
 * schemas, and a raw insert loop on the same database engine. Prints one JSON line with its addresses.
 */
import { randomBytes } from 'node:crypto';
import { GCProfiler } from 'node:v8';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import bs58 from 'bs58';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { startHush } from '../../src/runtime/start-hush.ts';
import { publishDepositRecordKey, publishTreasuryWallets } from '../../src/store/treasury-wallets-store.ts';
import { DEPOSIT_IDENTITY_TARGET, DepositIdentityMint } from '../../src/treasury/deposit-identity-mint.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { publishedWalletsOf } from '../../src/treasury/treasury-wallets.ts';
import { fundFromLocalFaucet } from '../../src/treasury/funding.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { insertBatchesInFlight, OrderInsertBatcher } from '../../src/services/order-insert-batcher.ts';
import { newTrackingId } from '../../src/domain/tracking-id.ts';
import { insertAccount, insertApiKey, updateAccount } from '../../src/store/accounts-store.ts';
import { QuoteRequestBody, QuoteResponse, TokensResponse } from '../../src/api/schemas.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

// Role api holds no treasury seed (docs/spec.md §10): this process also plays the worker's key-holding part
// beside it, publishing the wallets and keeping the deposit identity pool filled from a seed of its own.
const { TREASURY_SEED: _seed, ...apiEnv } = process.env;
const apiConfig = loadConfig({ HUSH_QUOTE_KEY: randomBytes(32).toString('hex'), ...apiEnv, HUSH_ROLE: 'api', PORT: '0' });
const custodyKeys = new TreasuryKeys(new Uint8Array(randomBytes(32)));
let identityMint: DepositIdentityMint | undefined;
const hush = await startHush(apiConfig, {
  clock: systemClock,
  random: systemRandom,
  onReady: async ({ db }) => {
    const custody = await Treasury.load(custodyKeys, apiConfig.assets);
    await publishTreasuryWallets(db, publishedWalletsOf(custody));
    await publishDepositRecordKey(db, custody.depositRecordKey);
    identityMint = new DepositIdentityMint(db, custodyKeys.depositMasterKey, apiConfig.assets, systemClock, systemRandom).start();
    await identityMint.filled(DEPOSIT_IDENTITY_TARGET, 120_000);
  },
});
void identityMint;
const db = hush.db;
// BENCH_SQL_STATS=1: time per statement (first line), printed at exit — where the store's time goes.
const sqlStats = new Map<string, { n: number; ms: number; max: number }>();
if (process.env.BENCH_SQL_STATS) {
  const query = db.query.bind(db);
  (db as { query: typeof db.query }).query = (async (sql: string, params?: unknown[]) => {
    const t = performance.now();
    try {
      return await query(sql, params);
    } finally {
      const k = sql.trim().split('\n')[0]!.slice(0, 90);
      const e = sqlStats.get(k) ?? { n: 0, ms: 0, max: 0 };
      const took = performance.now() - t;
      e.n++;
      e.ms += took;
      e.max = Math.max(e.max, took);
      sqlStats.set(k, e);
    }
  }) as typeof db.query;
}
/** The statements' times since the last print, by phase: the paced run's tail waits behind its own phase's statements. */
function printSqlStats(phase: string): void {
  if (sqlStats.size === 0) return;
  console.error(`sql ${phase}:`);
  for (const [k, v] of [...sqlStats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) console.error(`  ${v.n} × ${(v.ms / v.n).toFixed(2)} ms = ${v.ms.toFixed(0)} ms (longest ${v.max.toFixed(1)} ms)  ${k}`);
  sqlStats.clear();
}
// Role api never funds the treasury, and without funded pools (and fee payer) every quote is AMOUNT_TOO_HIGH:
// fund it from the local chain's faucet, as a worker would.
await fundFromLocalFaucet(db, hush.chain, hush.treasury, hush.config.assets, systemClock, processFaultPoints());
const accountId = `acc_bench${Date.now()}`;
await insertAccount(db, { id: accountId, name: accountId, feeCapBps: 100 });
await updateAccount(db, accountId, { rateLimits: { quote: 1_000_000, order: 1_000_000, status: 1_000_000, tokens: 1_000_000 } });
const key = generateApiKey(systemRandom);
await insertApiKey(db, { keyId: key.keyId, accountId, secretHash: key.secretHash, expiresAt: null });

const baseline = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
const tokens = {
  success: true as const,
  tokens: hush.config.assets.list.map((a) => ({ ...a, min: a.min.toString(), max: a.max.toString(), denominations: a.denominations.map(String), swapGrid: a.swapGrid.toString() })),
};
baseline.get('/bare', { schema: { response: { 200: TokensResponse } } }, async () => tokens);
const sampleQuote = {
  sourceAssetId: 'usdc',
  destinationAssetId: 'usdc',
  mode: 'exact_in' as const,
  amountIn: '5000000',
  amountOut: '4651651',
  fee: '348349',
  protocolFee: '40000',
  networkFee: '308349',
  feeBreakdown: { serviceFee: '15000', partnerFee: '25000', networkFee: '308349', depositAccountRent: '2039280' },
  duration: 35,
  min: '1000000',
  max: '100000000000',
  privacy: { standard: true, anonymitySet: 8, anonymitySetLikely: 8, delaySeconds: 80, suggestedAmounts: ['2000000', '5000000', '10000000'], basis: 'measured' as const },
  quoteId: `q_${'A'.repeat(180)}`,
  issuedAt: new Date().toISOString(),
  expiresAt: new Date().toISOString(),
};
baseline.post('/echo', { schema: { body: QuoteRequestBody, response: { 200: QuoteResponse } } }, async (request) => ({
  success: true as const,
  quote: { ...sampleQuote, sourceAssetId: request.body.sourceAssetId, amountIn: request.body.amount },
}));

/** The raw insert loop: order-shaped rows, as many concurrent loops as the order path may use. */
baseline.post<{ Querystring: { ms: string; workers: string } }>('/raw-insert', async (request) => {
  await db.query(`CREATE TABLE IF NOT EXISTS bench_raw_orders (id bigserial PRIMARY KEY, tracking_id text UNIQUE NOT NULL, account_id text NOT NULL,
    amount_in numeric(20,0) NOT NULL, amount_out numeric(20,0) NOT NULL, sender text NOT NULL, recipient text NOT NULL, quote jsonb NOT NULL, created_at timestamptz NOT NULL)`);
  const until = Date.now() + Number(request.query.ms);
  let n = 0;
  const started = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: Number(request.query.workers) }, async (_, w) => {
      while (Date.now() < until) {
        const t = performance.now();
        await db.query(
          'INSERT INTO bench_raw_orders (tracking_id, account_id, amount_in, amount_out, sender, recipient, quote, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, now())',
          [`raw_${w}_${n++}_${Math.random()}`, accountId, '5000000', '4651651', 'sender', 'recipient', JSON.stringify(sampleQuote)],
        );
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: n, seconds: (performance.now() - started) / 1000, p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)] };
});
/**
 * Hush's own order insert alone: the statement and group commit the order endpoint uses, fed by `callers`
 * concurrent loops (as the load generator's connections), with rows and records the size of the last
 * real order's. What orders per second the store allows before HTTP, quotes and transactions cost anything.
 */
baseline.post<{ Querystring: { ms: string; callers: string } }>('/insert-batched', async (request) => {
  const { rows } = await db.query<{ quote: unknown; response_body: unknown }>(
    `SELECT (SELECT quote FROM orders WHERE account_id = $1 ORDER BY id DESC LIMIT 1) AS quote,
       (SELECT response_body FROM idempotency_keys WHERE account_id = $1 AND state = 'done' ORDER BY created_at DESC LIMIT 1) AS response_body`,
    [accountId],
  );
  const template = rows[0]!;
  if (template.quote === null || template.response_body === null) throw new Error('no order to copy yet');
  const batcher = new OrderInsertBatcher(db, insertBatchesInFlight(db.kind), systemClock);
  const address = () => bs58.encode(randomBytes(32)) as Address;
  const [sender, recipient, blockhash] = [address(), address(), address()];
  const until = Date.now() + Number(request.query.ms);
  let n = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Number(request.query.callers) }, async () => {
      while (Date.now() < until) {
        const quoteKey = randomBytes(16).toString('hex');
        const now = new Date();
        const t = performance.now();
        const outcome = await batcher.insert({
          order: {
            trackingId: newTrackingId((n) => systemRandom.int(n)), accountId, quoteKey, quote: template.quote, sourceAssetId: 'usdc', destinationAssetId: 'usdc',
            mode: 'exact_in', amountIn: 5_000_000n, amountOut: 4_651_651n, serviceFee: 15_000n, partnerFee: 25_000n, networkFee: 308_349n,
            feeBps: 0, feeRecipient: null, sender, recipient, depositOwner: address(), depositAccount: address(),
            expiration: new Date(now.getTime() + 60_000), txBlockhash: blockhash, txLastValidBlockHeight: 1_000n, txExpiresAtSlot: 1_000n, createdAt: now,
          },
          key: `quote:${quoteKey}`,
          requestHash: randomBytes(32).toString('base64url'),
          responseBody: template.response_body,
        });
        if (outcome.kind !== 'created') throw new Error(`order insert: ${outcome.kind}`);
        latencies.push(performance.now() - t);
        n++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: n, seconds: (performance.now() - started) / 1000, p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)] };
});
// The event loop's delay over one phase (POST /loop-delay/start, /loop-delay/stop): whether a latency tail
// is this process stalling (GC, the identity mint above deriving keys) or waiting on something else.
// With it, the garbage collector's pauses over the same phase: its full (mark-compact) ones stop the loop longest.
let loopDelay: IntervalHistogram | undefined;
let gcPauses: { kind: number; ms: number }[] = [];
let gcProfiler: GCProfiler | undefined;
type GcStats = ReturnType<GCProfiler['stop']>;
/** Per scavenge, on average: what stayed in the young generation and what moved to the old (a scavenge's cost is what it copies). */
function scavengeSurvival(r: GcStats | undefined) {
  const space = (s: GcStats['statistics'][number]['beforeGC'], name: string) => s.heapSpaceStatistics.find((x) => x.spaceName === name)?.spaceUsedSize ?? 0;
  const scavenges = (r?.statistics ?? []).filter((g) => g.gcType === 'Scavenge');
  if (scavenges.length === 0) return undefined;
  const avg = (f: (g: (typeof scavenges)[number]) => number) => scavenges.reduce((t, g) => t + f(g), 0) / scavenges.length;
  return {
    beforeKb: avg((g) => space(g.beforeGC, 'new_space')) / 1024,
    survivedKb: avg((g) => space(g.afterGC, 'new_space')) / 1024,
    promotedKb: avg((g) => space(g.afterGC, 'old_space') - space(g.beforeGC, 'old_space')) / 1024,
  };
}
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ kind: (e as PerformanceEntry & { detail: { kind: number } }).detail.kind, ms: e.duration });
});
baseline.post('/loop-delay/start', async () => {
  loopDelay?.disable();
  loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  gcPauses = [];
  gcObserver.observe({ entryTypes: ['gc'] });
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  printSqlStats('before the paced run');
  return { ok: true };
});
baseline.post('/loop-delay/stop', async () => {
  loopDelay?.disable();
  gcObserver.disconnect();
  const survival = scavengeSurvival(gcProfiler?.stop());
  gcProfiler = undefined;
  printSqlStats('during the paced run');
  const ms = (ns: number) => ns / 1e6;
  const gc: Record<string, { pauses: number; totalMs: number; maxMs: number }> = {};
  for (const p of gcPauses) {
    const k = (gc[GC_KINDS[p.kind] ?? `kind ${p.kind}`] ??= { pauses: 0, totalMs: 0, maxMs: 0 });
    k.pauses++;
    k.totalMs += p.ms;
    k.maxMs = Math.max(k.maxMs, p.ms);
  }
  return loopDelay ? { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max), gc, survival } : {};
});
// BENCH_PROFILE_WINDOW=<dir>: POST /profile/start and /profile/stop bracket a CPU profile of one phase
// (BENCH_PROFILE_HEAP=1: a sampling profile of everything allocated meanwhile, collected or not).
if (process.env.BENCH_PROFILE_WINDOW) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  const heap = Boolean(process.env.BENCH_PROFILE_HEAP);
  baseline.post('/profile/start', async () => {
    if (heap) {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return { ok: true };
    }
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return { ok: true };
  });
  baseline.post('/profile/stop', async () => {
    const { profile } = heap ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
    const file = `${process.env.BENCH_PROFILE_WINDOW}/${heap ? 'heap' : 'window'}-${Date.now()}.${heap ? 'heapprofile' : 'cpuprofile'}`;
    writeFileSync(file, JSON.stringify(profile));
    return { file };
  });
}
const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });

const sender = await generateKeyPairSigner();
const recipient = await generateKeyPairSigner();
console.log(JSON.stringify({ hushUrl: hush.url, baselineUrl, apiKey: key.apiKey, sender: sender.address, recipient: recipient.address, engine: db.kind }));

process.on('SIGTERM', async () => {
  printSqlStats('after the paced run');
  if (process.env.BENCH_SQL_STATS && db.kind === 'pglite') {
    // A prepared statement whose generic plan never wins is planned again on every use (docs/decisions.md, "PGlite plans again as its tables grow").
    const { rows } = await db.query<{ s: string; custom: number; generic: number }>(
      `SELECT left(regexp_replace(statement, '\\s+', ' ', 'g'), 90) AS s, custom_plans AS custom, generic_plans AS generic FROM pg_prepared_statements
        WHERE custom_plans > 5 ORDER BY custom_plans DESC LIMIT 15`,
    );
    console.error('prepared statements planned on every use (custom plans, generic plans):');
    for (const r of rows) console.error(`  ${r.custom} custom, ${r.generic} generic  ${r.s}`);
  }
  await baseline.close();
  await hush.close();
  process.exit(0);
});
