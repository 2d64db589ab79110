/**
 * The process under test for bench:settlement: a whole Hush (role `all`: API and settlement worker)
 * against the external chain in SOLANA_RPC_URL, plus a bench partner account with rate limits high enough
 * for 200 orders at once, and a tiny side server that reads what only the store knows (when each payout
 * transaction was recorded, i.e. the instant before it was sent; when a class release was decided and when
 * it made each payout due). Prints one JSON line with its addresses.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { startHush } from '../../src/runtime/start-hush.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { insertAccount, insertApiKey, updateAccount } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { SqlStats } from './sql-stats.ts';

// BENCH_ROLE=worker: a second settlement worker on the same store and treasury (bench:settlement's two-worker
// run on PostgreSQL); it serves only /cpu on its side port.
const role = process.env.BENCH_ROLE === 'worker' ? 'worker' : 'all';
const hush = await startHush(loadConfig({ ...process.env, HUSH_ROLE: role, PORT: '0' }), {
  clock: systemClock,
  random: systemRandom,
  // Worker alerts and loop errors go to stderr, so a misbehaving run says why; not the info record of every
  // order transition (three per order: 690 lines that would bury the figures).
  log: (m) => void (m.startsWith('order transition') || process.stderr.write(`hush: ${m}\n`)),
});
const db = hush.db;
if (role === 'worker') await serveWorkerCpu();
// BENCH_SQL_STATS=1: the store's statements timed over the profiled window (/sql/start, /sql/stop).
const sqlStats = process.env.BENCH_SQL_STATS ? new SqlStats(db) : null;
const accountId = `acc_bench${Date.now()}`;
await insertAccount(db, { id: accountId, name: accountId, feeCapBps: 100 });
await updateAccount(db, accountId, { rateLimits: { quote: 1_000_000, order: 1_000_000, status: 1_000_000, tokens: 1_000_000 } });
const key = generateApiKey(systemRandom);
await insertApiKey(db, { keyId: key.keyId, accountId, secretHash: key.secretHash, expiresAt: null });

const side = createServer((req, res) => {
  const reply = (body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (e: Error) => {
    res.writeHead(500);
    res.end(e.message);
  };
  if (req.url === '/progress') {
    // One cheap aggregate: polled while the run is measured.
    db.query<{ status: string; n: string | number }>('SELECT status, count(*) AS n FROM orders GROUP BY status')
      .then(({ rows }) => reply(Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))))
      .catch(fail);
  } else if (req.url === '/payouts') {
    // Every payout transaction Hush recorded (record-before-send), with its time: read after the off-menu
    // phase, and every 25 ms during the class release (to learn the signatures to watch).
    // `settled_at` of a landed payout is when the worker settled its fate (saw it confirmed): its meta's
    // confirmedAt (its row's updated_at moves again when its costs are booked, after its order completed).
    // `dueAt` is the order's payout due time (the floor, or its class release's draw in the spread).
    db.query<{ tracking_id: string; signature: string; status: string; created_at: Date; settled_at: Date; part: string | null; payout_due_at: Date | null }>(
      `SELECT o.tracking_id, c.signature, c.status, c.created_at, coalesce((c.meta ->> 'confirmedAt')::timestamptz, c.updated_at) AS settled_at, c.meta ->> 'part' AS part, o.payout_due_at
         FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE c.kind = 'payout' ORDER BY c.id`,
    )
      .then(({ rows }) =>
        reply(
          rows.map((r) => ({
            trackingId: r.tracking_id,
            signature: r.signature,
            status: r.status,
            createdAt: r.created_at.toISOString(),
            settledAt: r.settled_at.toISOString(),
            part: Number(r.part ?? 0),
            dueAt: r.payout_due_at ? r.payout_due_at.toISOString() : null,
          })),
        ),
      )
      .catch(fail);
  } else if (req.url === '/releases') {
    // Class releases (docs/spec.md §9): the decision's moment (orders.class_released_at, the release pass's
    // transaction time), its size and the due time it drew for each payout in the spread.
    db.query<{ tracking_id: string; class_released_at: Date; class_release_size: number | null; payout_due_at: Date }>(
      `SELECT tracking_id, class_released_at, class_release_size, payout_due_at FROM orders WHERE class_released_at IS NOT NULL ORDER BY id`,
    )
      .then(({ rows }) =>
        reply(
          rows.map((r) => ({
            trackingId: r.tracking_id,
            decidedAt: r.class_released_at.toISOString(),
            size: r.class_release_size,
            dueAt: r.payout_due_at.toISOString(),
          })),
        ),
      )
      .catch(fail);
  } else if (req.url === '/cpu') {
    // CPU time this process has used (µs): the work the run cost, whatever else the machine is doing.
    const { user, system } = process.cpuUsage();
    reply({ micros: user + system });
  } else if (req.url === '/sql/start' && sqlStats) {
    sqlStats.take();
    reply({ ok: true });
  } else if (req.url === '/sql/stop' && sqlStats) {
    reply({ lines: sqlStats.take() });
  } else if (req.url === '/profile/start' && process.env.BENCH_PROFILE) {
    // CPU profile of exactly the measured window (BENCH_PROFILE=<dir>), for `where the time goes`.
    profiler.connect();
    profiler
      .post('Profiler.enable')
      .then(() => profiler.post('Profiler.start'))
      .then(() => reply({ ok: true }))
      .catch(fail);
  } else if (req.url === '/profile/stop' && process.env.BENCH_PROFILE) {
    profiler
      .post('Profiler.stop')
      .then(({ profile }) => {
        const file = join(process.env.BENCH_PROFILE!, `settlement-${Date.now()}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        profiler.disconnect();
        reply({ file });
      })
      .catch(fail);
  } else {
    res.writeHead(404);
    res.end();
  }
});
const profiler = new Session();
await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
const sidePort = (side.address() as { port: number }).port;

console.log(JSON.stringify({ hushUrl: hush.url, sideUrl: `http://127.0.0.1:${sidePort}`, apiKey: key.apiKey, engine: db.kind }));

let stopping = false;
process.on('SIGTERM', async () => {
  if (stopping) return;
  stopping = true;
  side.close();
  await hush.close();
  process.exit(0);
});

/** The second worker's side: its CPU time only, then it runs until SIGTERM. */
async function serveWorkerCpu(): Promise<never> {
  const side = createServer((_req, res) => {
    const { user, system } = process.cpuUsage();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ micros: user + system }));
  });
  await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
  console.log(JSON.stringify({ sideUrl: `http://127.0.0.1:${(side.address() as { port: number }).port}`, engine: hush.db.kind, worker: true }));
  process.on('SIGTERM', async () => {
    side.close();
    await hush.close();
    process.exit(0);
  });
  return new Promise<never>(() => {});
}
