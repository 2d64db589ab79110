/**
 * bench:open-orders — what open unfunded orders cost in chain calls (issue 43, item 3): idle calls per
 * second with no order, then with BENCH_ORDERS (100) open unfunded orders (quoted and ordered over HTTP,
 * never deposited), by method. Target: ≤ 1.5 calls/s with 100 open orders, at the default request budget
 * (HUSH_RPC_MAX_RPS 10; set it in the environment to measure another).
 *
 * Processes, as bench:settlement: the embedded chain alone in one child, a counting JSON-RPC proxy in a
 * second (bench/support/rpc-cost.ts), Hush (API and worker, PGlite, the production settings, PubSub
 * straight to the chain) in a third, this process the partner. Windows of BENCH_IDLE_S (15) seconds each:
 *  - no order (after the start's own work);
 *  - the open unfunded orders, once placed: the figure held to the target.
 * The machine's load average is printed: other processes on it skew the timing, not the counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSigner } from '@solana/kit';
import { localnetUrls, sleep, start, stop, waitLine } from './support/processes.ts';
import { idle, perUnit, startRpcProxy, totalCalls, type RpcCounts, type RpcProxy } from './support/rpc-cost.ts';
import { api, pool, type BenchInfo } from './support/settlement-bench-client.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100);
const SLOT_MS = Number(process.env.LOCALNET_SLOT_MS ?? 400);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 15);
const TARGET = 1.5;

const chainDir = mkdtempSync(join(tmpdir(), 'hush-bench-open-chain-'));
const hushDir = mkdtempSync(join(tmpdir(), 'hush-bench-open-hush-'));
const chain = start('src/cli/localnet.ts', { DATA_DIR: chainDir, LOCALNET_PORT: '0', LOCALNET_SLOT_MS: String(SLOT_MS) });
let hush: ChildProcess | null = null;
let proxy: RpcProxy | null = null;
try {
  const { url: chainUrl, wsUrl } = await localnetUrls(chain);
  proxy = await startRpcProxy(chainUrl);
  hush = start('bench/support/settlement-bench-server.ts', {
    DATA_DIR: hushDir,
    SOLANA_RPC_URL: proxy.url,
    SOLANA_WS_URL: wsUrl,
    LOCALNET_SLOT_MS: String(SLOT_MS),
    HUSH_SLOT_MS: String(SLOT_MS),
    // One partner's flood: above the default cap of 50 open orders per account.
    HUSH_MAX_OPEN_ORDERS: '100000',
  });
  const info = JSON.parse(await waitLine(hush, (l) => l.startsWith('{'))) as BenchInfo;
  await sleep(3_000);

  const windows: [string, { counts: RpcCounts; seconds: number }, boolean][] = [];
  windows.push(['no open order', await idle(proxy, IDLE_S), false]);
  const sender = (await generateKeyPairSigner()).address;
  const placedAt = Date.now();
  await pool(ORDERS, 8, async () => {
    const terms = { senderAddress: sender, recipientAddress: (await generateKeyPairSigner()).address };
    const { quote } = await api<{ quote: Record<string, unknown> }>(info, 'POST', '/quote', { amount: '1000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', ...terms });
    await api(info, 'POST', '/order', { quote, ...terms });
  });
  const placedS = (Date.now() - placedAt) / 1000;
  windows.push([`${ORDERS} open unfunded orders, steady`, await idle(proxy, IDLE_S), true]);
  const progress = (await (await fetch(`${info.sideUrl}/progress`)).json()) as Record<string, number>;
  if ((progress.awaiting_deposit ?? 0) !== ORDERS) throw new Error(`expected ${ORDERS} open orders, found ${JSON.stringify(progress)}`);

  console.log(
    `bench:open-orders  ${ORDERS} unfunded USDC orders placed in ${placedS.toFixed(1)} s, slot ${SLOT_MS} ms, budget HUSH_RPC_MAX_RPS=${process.env.HUSH_RPC_MAX_RPS ?? '10 (default)'}; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
  );
  console.log('  chain calls through a counting proxy (each call of a batch counts), PubSub connected');
  let met = true;
  for (const [label, w, held] of windows) {
    const [head, detail] = perUnit(w.counts, w.seconds, 's', 6);
    const rate = totalCalls(w.counts) / w.seconds;
    if (held) met &&= rate <= TARGET;
    console.log(`  ${`${label} (${w.seconds.toFixed(0)} s)`.padEnd(56)} ${head.padEnd(22)} ${held ? `≤ ${TARGET} /s ${rate <= TARGET ? 'PASS' : 'MISS'}` : ''}`);
    console.log(`      ${detail}`);
  }
  console.log(`  target: ${met ? 'met' : 'missed'}`);
} finally {
  if (hush) await stop(hush);
  await proxy?.stop();
  await stop(chain);
  rmSync(chainDir, { recursive: true, force: true });
  rmSync(hushDir, { recursive: true, force: true });
}
