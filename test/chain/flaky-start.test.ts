/**
 * A start on a flaky chain: a worker whose RPC answers 503 to everything keeps trying (backoff) rather
 * than exiting, its /readyz answers 503 meanwhile, and once the chain answers it funds the treasury and
 * becomes ready. The plain-JSON path reads the HTTP status before the body: a 503 is a clear
 * ChainUnavailableError, never a JSON syntax error. Real localnet behind the fault-injecting proxy.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ChainUnavailableError, JsonRpcError, SolanaChain } from '../../src/chain/solana-chain.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startHush, type RunningHush } from '../../src/runtime/start-hush.ts';
import { isLocalFaucetChain } from '../../src/treasury/funding.ts';
import { reconcile } from '../../src/ledger/reconcile.ts';
import { makeTempDir, pollUntil, proxiedLocalnet, removeDir } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const net = proxiedLocalnet();

function workerConfig(dataDir: string, opsPort?: number) {
  return loadConfig({
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    TREASURY_SEED: randomBytes(32).toString('hex'),
    HUSH_ROLE: 'worker',
    ...(opsPort ? { HUSH_OPS_PORT: String(opsPort) } : {}),
    SOLANA_RPC_URL: net.proxy.url,
    LOCALNET_SLOT_MS: '50',
    HUSH_SLOT_MS: '50',
    HUSH_DRAIN_GRACE_MS: '0',
    // Every fault here answers at once (503, 429, a cut connection): the timeout only bounds a real answer,
    // which a loaded machine's in-process chain gave later than 2 s.
    HUSH_RPC_TIMEOUT_MS: '10000',
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('a 503 or 429 from the RPC is a ChainUnavailableError with its status (and Retry-After), a JSON-RPC error is not', async () => {
  const c = new SolanaChain(net.proxy.url, systemClock, 50, 10_000);
  net.proxy.setFaults([{ kind: '503' }]);
  try {
    const e = await c.call('getSlot', []).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof ChainUnavailableError, `got ${String(e)}`);
    assert.equal(e.status, 503);
    const k = await c.rpc.getSlot().send().then(() => null, (x: unknown) => x);
    assert.ok(k instanceof ChainUnavailableError, `kit: got ${String(k)}`);
    assert.equal(k.status, 503);
    net.proxy.setFaults([{ kind: '429', retryAfterS: 3 }]);
    const r = await c.call('getSlot', []).then(() => null, (x: unknown) => x);
    assert.ok(r instanceof ChainUnavailableError);
    assert.equal(r.status, 429);
    assert.equal(r.retryAfterMs, 3_000);
    // Whether the net.chain has the faucet is decided by an answer, never guessed from a failure.
    await assert.rejects(isLocalFaucetChain(c), ChainUnavailableError);
  } finally {
    net.proxy.setFaults([]);
  }
  assert.equal(await isLocalFaucetChain(c), true);
  await assert.rejects(c.call('noSuchMethod', []), JsonRpcError);
});

test('a worker starting on a net.chain that answers 503 waits it out: /readyz 503 meanwhile, then funded and ready', { timeout: 90_000 }, async () => {
  const dataDir = makeTempDir('hush-flaky-start-');
  const opsPort = await freePort();
  const lines: string[] = [];
  net.proxy.setFaults([{ kind: '503' }]);
  let hush: RunningHush | undefined;
  const starting = startHush(
    workerConfig(dataDir, opsPort),
    { clock: systemClock, random: systemRandom, log: (m) => lines.push(m) },
  ).then((h) => (hush = h));
  try {
    const notReady = await pollUntil(async () => {
      const r = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null);
      return r?.status === 503 ? ((await r.json()) as { error: { code: string; details: Record<string, string> } }) : null;
    }, { what: '/readyz answering 503 during the start', timeoutMs: 20_000, intervalMs: 100 });
    assert.equal(notReady.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(notReady.error.details.start, 'in progress');
    await pollUntil(async () => lines.filter((l) => /^start: .*retrying in/.test(l)).length >= 3, { what: 'three retries logged', timeoutMs: 20_000 });
    assert.equal(hush, undefined, 'the start waits for the chain');
    assert.ok(lines.every((l) => !/SyntaxError|Unexpected token/.test(l)), lines.join('\n'));
    net.proxy.setFaults([]);
    await starting;
    const ready = await pollUntil(async () => {
      const r = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
      return r.status === 200 ? r : null;
    }, { what: '/readyz 200 once started', timeoutMs: 10_000 });
    assert.equal(ready.status, 200);
    // RPC calls by method and outcome, the 503s of the start among them.
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    assert.match(metrics, /hush_rpc_requests_total\{method="localnet_requestTokenAirdrop",outcome="http_error"\} [1-9]/);
    assert.match(metrics, /hush_rpc_requests_total\{method="getMultipleAccounts",outcome="ok"\} [1-9]/);
    // Funded at start and booked: the fee payer's funding is on the ledger.
    const { rows } = await hush!.db.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_entries WHERE account LIKE 'feepayer:%'");
    assert.ok(Number(rows[0]!.n) >= 1, 'the funding of the fee payer is booked');
  } finally {
    net.proxy.setFaults([]);
    await starting.catch(() => {});
    await hush?.close();
    removeDir(dataDir);
  }
});

test('a faucet top-up whose answer was lost after it executed is booked (intent first): reconcile is clean', { timeout: 90_000 }, async () => {
  const dataDir = makeTempDir('hush-lost-airdrop-');
  // The fee payer's airdrop runs on the chain; its answer never reaches Hush.
  net.proxy.setFaults([{ kind: 'drop', methods: ['requestAirdrop'], times: 1 }]);
  const lines: string[] = [];
  let hush: RunningHush | undefined;
  try {
    hush = await startHush(workerConfig(dataDir), { clock: systemClock, random: systemRandom, log: (m) => lines.push(m) });
    assert.equal(net.proxy.outcomes.get('drop'), 1, 'an answer was dropped');
    assert.ok(lines.some((l) => /^start: funding the treasury: .*retrying/.test(l)), lines.join('\n'));
    const report = await reconcile(hush.db, hush.chain, hush.treasury, hush.config.assets);
    assert.equal(report.ok, true, JSON.stringify(report.assets.filter((a) => !a.ok)));
    const { rows } = await hush.db.query<{ n: string }>('SELECT count(*)::text AS n FROM funding_airdrops');
    assert.equal(rows[0]!.n, '0', 'every intent settled');
    const fp = await hush.db.query<{ n: string }>("SELECT count(*)::text AS n FROM ledger_entries WHERE kind = 'funding' AND account LIKE 'feepayer:%'");
    assert.equal(fp.rows[0]!.n, '1', 'the fee payer funded and booked once');
  } finally {
    net.proxy.setFaults([]);
    await hush?.close();
    removeDir(dataDir);
  }
});
