/**
 * bench:privacy — how many of Hush's orders an outsider links, and the delay that buys the rest.
 *
 *   npm run bench:privacy                 every workload at λ ∈ {0.05, 0.2, 1, 5}/s, 40–150 orders per row
 *   npm run bench:privacy -- --full       150–600 orders per row
 *   … -- --rates=1 --n=20                 a subset
 *   … -- --write-docs                     also rewrite the table and chart in docs/privacy.md
 *
 * Time is compressed (see compressionFor): the figures are stated per λ·D, arrivals per delay window,
 * which compression keeps. Fails (exit 1) when a self-check fails.
 */
import { loadConfig } from '../src/config/config.ts';
import { runOnce, type RunResult } from './privacy/run.ts';
import { printTable, selfChecks, writeDocs } from './privacy/report.ts';
import { denominationsOf, seeded, workloads } from './privacy/workloads.ts';

const args = new Map<string, string | undefined>(process.argv.slice(2).map((a) => { const [k, v] = a.replace(/^--/, '').split('='); return [k!, v]; }));
const full = args.has('full');
const rates = (args.get('rates') ?? '0.05,0.2,1,5').split(',').map(Number);
const config = loadConfig(process.env);
const meanWaitS = (config.payoutDelayS.min + config.payoutDelayS.max) / 2;
/**
 * Orders per row: a row can show no anonymity set larger than itself, so it grows with λ·D — four delay
 * windows' worth — between 40 and 150 (150 and 600 with --full).
 */
const ordersFor = (rate: number) => Number(args.get('n') ?? Math.min(full ? 600 : 150, Math.max(full ? 150 : 40, Math.round(4 * rate * meanWaitS))));
const assets = new Map(config.assets.list.map((a) => [a.assetId, a]));
const table = { get: (id: string) => assets.get(id)!, denominations: (id: string) => denominationsOf(assets.get(id)!) };
const seed = Number(args.get('seed') ?? 20261122);
const random = seeded(seed);
const log = (m: string) => process.stderr.write(`${m}\n`);

/**
 * Compression c: slot 400/c ms, delay window and arrival gaps ÷ c, so arrivals per delay window (λ·D) and
 * per slot are those of the real rate. Chosen so a row's arrivals take about a minute, between 1 (real
 * time: the highest rate already loads two cores) and 8, a power of two so the scaled window stays exact
 * in milliseconds.
 */
function compressionFor(rate: number): number {
  let c = 1;
  while (c < 8 && ordersFor(rate) / (rate * c) > 60) c *= 2;
  return c;
}

const results: { rate: number; compression: number; run: RunResult }[] = [];
const t0 = Date.now();
for (const rate of rates) {
  const compression = compressionFor(rate);
  const run = await runOnce({ rate, compression, ordersPerRow: ordersFor(rate), delayWindowS: config.payoutDelayS, workloads: workloads(table), assets, random, log });
  log(`  done in ${run.wallSeconds.toFixed(0)} s: ${run.failedOrders} failed, ${run.unswept} unswept, ${run.rpcRequests} adversary RPC requests`);
  results.push({ rate, compression, run });
}

// Self-check: with no delay at all, timing alone must link nearly everything.
log('self-check: delay off');
// Evenly spaced, ten slots apart: the pipeline's own jitter (a slot or two) must not hide the order.
const off = await runOnce({
  rate: 0.25,
  compression: 4,
  ordersPerRow: 24,
  delayWindowS: { min: 0, max: 0 },
  workloads: workloads(table)
    .filter((w) => w.id === 'std-out')
    .map((w) => ({ ...w, label: 'self-check: delay off', regular: true, rates: undefined })),
  assets,
  random,
  env: { HUSH_PRIVACY: 'off' },
  log,
});

printTable(results, off);
const failures = selfChecks(results, off);
for (const f of failures) log(`SELF-CHECK FAILED: ${f}`);
log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (args.has('write-docs')) writeDocs(results, off, { ordersPerRow: rates.map(ordersFor).join('/'), seed, seconds: (Date.now() - t0) / 1000 });
process.exit(failures.length > 0 ? 1 : 0);
