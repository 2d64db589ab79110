/**
 * bench:settlement — how fast Hush settles orders in the production configuration (privacy on, the real
 * menu, class release: docs/spec.md §9; nothing set but what a burst of 200 orders from one partner needs),
 * next to a baseline measured in the same run on the same chain endpoint.
 *
 * Processes (2 cores): the embedded chain runs alone in one child (`src/cli/localnet.ts`), Hush (API and
 * settlement worker, PGlite store) in a second child (`bench/support/settlement-bench-server.ts`), and
 * this process is the partner and the stopwatch. Hush gets its own process rather than running in this
 * one because this process polls the chain every few milliseconds while the run is measured: in one event
 * loop that polling would delay Hush's worker and inflate the very overhead being measured. Only the
 * store knows when a payout was recorded and when a class release was decided, so the Hush child also
 * serves a tiny read-only side endpoint.
 *
 * (a) An amount off the menu (bench/support/settlement-off-menu-run.ts). 200 (BENCH_ORDERS) funded senders
 *     each quote and order a send of 10.5 USDC (BENCH_ASSET; 0.105 SOL), not one of the menu's amounts, to
 *     a fresh recipient over HTTP: not private, its payout is due at the policy's floor, two slots after
 *     its deposit's confirmation, and the order loop pays it. All 200 deposits are signed up front and
 *     submitted at once (JSON-RPC batches, split only to fit the RPC's 50 KiB body limit, posted
 *     concurrently); the phase ends when every order is `completed`.
 *     - orders settled / s = N / (deposit batch submitted → last `completed`), next to a raw loop that
 *       builds (buildPayout, same shape: same fee payer kind, compute budget, idempotent ATA creation,
 *       fresh recipients), signs, sends the same N payouts from a treasury's pools over the same JSON-RPC
 *       endpoint without Hush, and polls until all are confirmed. Target ratio ≥ 0.3.
 *     - deposit landed → payout landed, in slots: the slot the payout landed minus the slot the deposit
 *       landed (both from getSignatureStatuses; several payout parts → the latest). Goal: the floor, p50
 *       2 slots, p99 3 (a payout never lands in its deposit's slot or the next).
 *     - deposit visible → completed (ms, and in slots) and the history's deposit_confirmed → completed,
 *       where "visible" is the moment this process first saw the deposit at `confirmed` (polled every
 *       POLL_MS; the resolution is printed).
 *     - Hush's own overhead: payout due (the floor) → payout recorded and sent (the payout's
 *       `chain_txs.created_at`, written in the transaction that records the signed payout, immediately
 *       before it is sent: record-before-send), target p99 ≤ 100 ms; and deposit visible → payout
 *       recorded, which includes the floor. All processes share one wall clock (PGlite's now() too).
 *     - the CPU time the Hush process used (load-independent work per order) and consecutive per-order
 *       phases from the store's own timestamps (history entries, payout due time, chain_txs created_at /
 *       updated_at), to say where the time goes.
 * (b) A class release of 30 (BENCH_CLASS; bench/support/settlement-class-run.ts): 30 orders of 10 USDC
 *     (0.1 SOL), an amount on the menu, whose quotes carry the partner's choice
 *     `privacy: { minAnonymitySet: 30 }`, so the class waits for all 30 whatever the traffic estimate;
 *     deposits submitted together. Measured: release decided (orders.class_released_at) → the last payout
 *     of the release seen `confirmed` by this process (it polls getSignatureStatuses every POLL_MS for the
 *     payout signatures the store has recorded, read every 25 ms; the longest gap between two polls is
 *     printed as the resolution). Goal ≤ the spread's max (HUSH_PAYOUT_DELAY_S, default 5-30 s) + 2 slots.
 *     Also printed: the release size each order's status record reports (privacy.releasedWith: 30).
 * (c) RPC cost: Hush reaches the chain through a counting JSON-RPC proxy (its own process, bench/support/
 *     rpc-cost.ts), and so does the baseline's timed loop (a second one); printed are calls per idle second
 *     (before (a), between (a) and (b), after (b)), per order of each phase (first quote → last completed)
 *     and per baseline payout, with what the proxy adds to one call. The bench's own polling goes straight
 *     to the chain, uncounted.
 *
 * Signing is Ed25519 through WebCrypto (`crypto.subtle`), which kit uses and Node 20 implements natively
 * (OpenSSL); the run checks that no JavaScript polyfill replaced it.
 * BENCH_RPC_PROXY=off: Hush straight to the chain, to see what the proxy does to the latency figures.
 * BENCH_DATABASE_URL=<postgres url> runs Hush on PostgreSQL instead of PGlite (private schema, dropped after).
 * BENCH_PROFILE=<dir> writes a CPU profile of the Hush process covering exactly phase (a) there.
 * The machine's load average is printed: other processes on it skew every figure. Bounded: each phase
 * times out after 3 minutes; a whole run takes about two.
 */
import type { ChildProcess } from 'node:child_process';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../src/config/config.ts';
import { localnetUrls, sleep, start, stop, waitLine } from './support/processes.ts';
import { rawPayoutLoop } from './support/raw-payout-loop.ts';
import { rawFlooredLoop } from './support/raw-floored-loop.ts';
import { idle, proxyOverhead, since, startRpcProxy, totalCalls, type RpcProxy } from './support/rpc-cost.ts';
import { reportAgainstBaseline } from './support/baseline-compare.ts';
import { pct } from './support/stats.ts';
import { screeningList } from './support/screening-list.ts';
import type { BenchInfo } from './support/settlement-bench-client.ts';
import { classRun } from './support/settlement-class-run.ts';
import { offMenuRun } from './support/settlement-off-menu-run.ts';
import { printClassRun, printHeader, printOffMenuRun, printRpc, printTally } from './support/settlement-report.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200);
const CLASS = Number(process.env.BENCH_CLASS ?? 30);
const ASSET = process.env.BENCH_ASSET ?? 'usdc';
const SLOT_MS = Number(process.env.LOCALNET_SLOT_MS ?? 400);
const POLL_MS = 10;
const PG_URL = process.env.BENCH_DATABASE_URL || undefined;
const PG_SCHEMA = `hush_bench_settle_${process.pid}`;
const TIMEOUT_MS = 180_000;
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
const COUNTED = process.env.BENCH_RPC_PROXY !== 'off';
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const TREASURY_SEED = randomBytes(32).toString('hex');

const config = loadConfig({ ...process.env, LOCALNET_SLOT_MS: String(SLOT_MS) });
const asset = config.assets.get(ASSET);
if (!asset) throw new Error(`unknown BENCH_ASSET ${ASSET}`);
const unit = 10n ** BigInt(asset.decimals);
/** Phase (a): 10.5 tokens, or 0.105 SOL: off the menu (decade: 1·10ⁿ), so paid at the floor. */
const AMOUNT = asset.native ? (unit * 105n) / 1000n : (unit * 105n) / 10n;
/** Phase (b): 10 tokens, or 0.1 SOL: on the menu, a private amount released with its class. */
const CLASS_AMOUNT = asset.native ? unit / 10n : 10n * unit;
if (asset.denominations.includes(AMOUNT)) throw new Error(`${AMOUNT} base units is on the ${config.denominationMenu} menu: phase (a) needs an amount off it`);
if (!asset.denominations.includes(CLASS_AMOUNT)) throw new Error(`${CLASS_AMOUNT} base units is not on the ${config.denominationMenu} menu: phase (b) needs one on it`);

// kit signs through globalThis.crypto.subtle; make sure that is Node's native WebCrypto, not a polyfill.
const probe = await generateKeyPairSigner();
// (KeyObject.from accepts only Node's own CryptoKey objects.)
if (globalThis.crypto.subtle !== webcrypto.subtle || KeyObject.from(probe.keyPair.privateKey).asymmetricKeyType !== 'ed25519') {
  throw new Error('Ed25519 signing is not going through native WebCrypto');
}

// Other processes on the machine skew every figure here (Hush's store is CPU-bound): say how busy it was.
const loadAtStart = loadavg()[0]!;
const chainDir = mkdtempSync(join(tmpdir(), 'hush-bench-settle-chain-'));
const hushDir = mkdtempSync(join(tmpdir(), 'hush-bench-settle-hush-'));
const SCREENED = Number(process.env.BENCH_SCREENING_LIST ?? 1000);
const chain = start('src/cli/localnet.ts', { DATA_DIR: chainDir, LOCALNET_PORT: '0', LOCALNET_SLOT_MS: String(SLOT_MS) });
let hush: ChildProcess | null = null;
const extraWorkers: ChildProcess[] = [];
const proxies: RpcProxy[] = [];
try {
  const { url: chainUrl, wsUrl } = await localnetUrls(chain);
  const rpc = createSolanaRpc(chainUrl);
  // One counting proxy for Hush, one for the baseline's timed loop, so neither's calls count for the other.
  const hushProxy = await startRpcProxy(chainUrl);
  const baseProxy = await startRpcProxy(chainUrl);
  proxies.push(hushProxy, baseProxy);
  const hushEnv = {
      DATA_DIR: hushDir,
      SOLANA_RPC_URL: COUNTED ? hushProxy.url : chainUrl,
      // Named, not derived from the proxy's address: the chain's PubSub is not behind the proxy.
      SOLANA_WS_URL: wsUrl,
      LOCALNET_SLOT_MS: String(SLOT_MS),
      HUSH_SLOT_MS: String(SLOT_MS),
      HUSH_QUOTE_TTL_S: '600',
      // A burst of orders from one account, placed before any is funded: above the default cap of 50 open ones.
      HUSH_MAX_OPEN_ORDERS: '10000000',
      // The local chain has no provider limit: 200 orders at once are measured unthrottled (default budget 10/s).
      HUSH_RPC_MAX_RPS: process.env.HUSH_RPC_MAX_RPS ?? '0',
      // BENCH_DATABASE_URL: the same run on a PostgreSQL server, in a private schema dropped afterwards.
      DATABASE_URL: PG_URL ?? '',
      DATABASE_SCHEMA: PG_URL ? PG_SCHEMA : '',
      // One treasury for every worker of a two-worker run.
      TREASURY_SEED: TREASURY_SEED,
      // Screening on, as every deployment runs it (docs/spec.md §12): a list of BENCH_SCREENING_LIST (1,000)
      // addresses, none of them the bench's; BENCH_SCREENING_LIST=0 measures without.
      HUSH_SCREENING_LISTS: screeningList(hushDir, SCREENED),
  };
  hush = start('bench/support/settlement-bench-server.ts', hushEnv);
  const info = JSON.parse(await waitLine(hush, (l) => l.startsWith('{'))) as BenchInfo;
  // BENCH_WORKERS=2 (PostgreSQL only): a second settlement worker on the same store and treasury seed.
  if (WORKERS > 1) {
    if (!PG_URL) throw new Error('BENCH_WORKERS > 1 needs BENCH_DATABASE_URL: PGlite is one process\'s store');
    info.workerSideUrls = [];
    for (let i = 1; i < WORKERS; i++) {
      const w = start('bench/support/settlement-bench-server.ts', { ...hushEnv, BENCH_ROLE: 'worker', DATA_DIR: mkdtempSync(join(tmpdir(), 'hush-bench-settle-worker-')) });
      extraWorkers.push(w);
      info.workerSideUrls.push((JSON.parse(await waitLine(w, (l) => l.startsWith('{'))) as { sideUrl: string }).sideUrl);
    }
  }

  const overhead = await proxyOverhead(chainUrl, baseProxy.url);
  // Idle: Hush started and funded, no order yet (a moment first for the start's own work to end).
  await sleep(2_000);
  const idleBefore = COUNTED ? await idle(hushProxy, IDLE_S) : null;
  const baseRpc0 = await baseProxy.counts();
  const base = await rawPayoutLoop(chainUrl, rpc, createSolanaRpc(baseProxy.url), { config, asset, orders: ORDERS, amount: AMOUNT, pollMs: POLL_MS });
  const baseRpc = since(await baseProxy.counts(), baseRpc0);
  // The same payouts by hand under the policy's floor (deposits watched, each payout two slots after): the pace Hush is held to.
  const floored = await rawFlooredLoop(chainUrl, rpc, { config, asset, orders: ORDERS, amount: AMOUNT, pollMs: POLL_MS, slotMs: SLOT_MS });
  const setup = { chainUrl, rpc, info, proxy: hushProxy, asset, slotMs: SLOT_MS, pollMs: POLL_MS, timeoutMs: TIMEOUT_MS };
  const offMenu = await offMenuRun({ ...setup, orders: ORDERS, amount: AMOUNT });
  // Between the phases: every order completed, their deposits' sweeps (4 per transaction, every 5 s) under way.
  const idleBetween = COUNTED ? await idle(hushProxy, IDLE_S) : null;
  const klass = await classRun({ ...setup, orders: CLASS, amount: CLASS_AMOUNT }, ORDERS);
  const idleAfter = COUNTED ? await idle(hushProxy, IDLE_S) : null;

  const tokens = (x: bigint) => `${Number(x) / Number(unit)} ${asset.symbol}`;
  printHeader({ orders: ORDERS, classSize: CLASS, symbol: asset.symbol, slotMs: SLOT_MS, engine: info.engine, menu: config.denominationMenu, spreadS: config.payoutDelayS, load: loadAtStart, cores: cpus().length, screened: SCREENED });
  printOffMenuRun(offMenu, base, floored, { workers: WORKERS, orders: ORDERS, amount: tokens(AMOUNT), slotMs: SLOT_MS, pollMs: POLL_MS });
  printClassRun(klass, { amount: tokens(CLASS_AMOUNT), slotMs: SLOT_MS, spreadS: config.payoutDelayS });
  if (!idleBefore || !idleBetween || !idleAfter) console.log('(c) RPC calls not counted: BENCH_RPC_PROXY=off (Hush straight to the chain)');
  else {
    printRpc({
      workers: WORKERS,
      overhead,
      idleBefore,
      idleBetween,
      idleAfter,
      offMenu: { rpc: offMenu.rpc, rpcSeconds: offMenu.rpcSeconds, orders: ORDERS },
      klass: { rpc: klass.rpc, rpcSeconds: klass.rpcSeconds, orders: CLASS },
      base: { rpc: baseRpc, orders: ORDERS },
    });
  }
  printTally();
  // Issue 56: the headline figures against bench/baselines/settlement.json (a REGRESSION line past 10 %; -- --record).
  const e = WORKERS > 1 ? `${info.engine} ×${WORKERS} workers` : info.engine;
  const figures = [
    { name: `${e} (a) orders/s ÷ raw payout loop`, value: offMenu.perSecond / base.perSecond, unit: '×', better: 'higher' as const },
    { name: `${e} (a) orders/s ÷ raw loop at the floor`, value: offMenu.perSecond / floored.perSecond, unit: '×', better: 'higher' as const },
    { name: `${e} (a) deposit → payout slots p99`, value: pct(offMenu.slots, 0.99), unit: 'slots', better: 'lower' as const },
    { name: `${e} (a) payout due → sent p99`, value: pct(offMenu.dueToSentMs, 0.99), unit: 'ms', better: 'lower' as const },
    { name: `${e} (a) Hush CPU per order`, value: offMenu.cpuMs / ORDERS, unit: 'ms', better: 'lower' as const },
    { name: `${e} (b) release → last payout confirmed`, value: klass.lastConfirmedMs, unit: 'ms', better: 'lower' as const },
    ...(idleBefore ? [{ name: `${e} RPC calls per idle s`, value: totalCalls(idleBefore.counts) / idleBefore.seconds, unit: '/s', better: 'lower' as const }] : []),
    { name: `${e} (a) RPC calls per order`, value: totalCalls(offMenu.rpc) / ORDERS, unit: '/order', better: 'lower' as const },
  ];
  reportAgainstBaseline('settlement', figures, `BENCH_ORDERS=${ORDERS} BENCH_CLASS=${CLASS}, load average ${loadAtStart.toFixed(1)} at start`);
} finally {
  for (const w of extraWorkers) await stop(w);
  if (hush) await stop(hush);
  for (const p of proxies) await p.stop();
  await stop(chain);
  rmSync(chainDir, { recursive: true, force: true });
  rmSync(hushDir, { recursive: true, force: true });
  if (PG_URL) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    await c.end();
  }
}
