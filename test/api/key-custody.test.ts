/**
 * Issue 35 finding 4, key custody by role (docs/spec.md §10): a real `HUSH_ROLE=api` process, sharing a
 * PostgreSQL store with a real worker process (which holds the seed and runs the embedded chain), serves
 * quote → order, and the order it created settles — while the API's environment holds no TREASURY_SEED,
 * its DATA_DIR holds no seed file, and a heap snapshot of it holds neither the seed nor any key derived
 * from it (as strings), nor any object that carries a key (TreasuryKeys, Treasury, a private key object). The same
 * snapshot check on the worker finds them, so the check can fail. An API started with TREASURY_SEED in its
 * environment is refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import bs58 from 'bs58';
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig, ConfigError } from '../../src/config/config.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { insertAccount, insertApiKey, updateAccount } from '../../src/store/accounts-store.ts';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock } from '../../src/support/clock.ts';
import { getOrderByTrackingId } from '../../src/store/orders-store.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { addressOfSeed } from '../../src/treasury/treasury-keys.ts';
import { dropSchema, newSchemaName, POSTGRES_URL, postgresSkipReason } from '../support/databases.ts';
import { HushClient } from '../support/hush-server.ts';
import { spawnHush, type HushProcess } from '../support/hush-process.ts';
import { makeTempDir, pollUntil, removeDir } from '../support/localnet.ts';
import { chainAt, depositWithRefresh, newWallet, placeOrder, SOL, waitForOrder } from '../support/settlement.ts';
import { systemRandom } from '../../src/support/random.ts';

/** Every printable form a 32-byte secret could take in memory. */
function forms(bytes: Uint8Array): string[] {
  const b = Buffer.from(bytes);
  return [b.toString('hex'), b.toString('hex').toUpperCase(), b.toString('base64'), b.toString('base64url'), bs58.encode(b)];
}

/** What a heap snapshot holds: its strings, and how many objects each constructor has. */
interface HeapView {
  strings: string[];
  objects: Map<string, number>;
}

/** Sends SIGUSR2 (the process runs with --heapsnapshot-signal) and reads the snapshot once it is written whole. */
async function heapSnapshot(p: HushProcess, dir: string): Promise<HeapView> {
  const before = new Set(readdirSync(dir));
  p.proc.kill('SIGUSR2');
  let file = '';
  let size = -1;
  await pollUntil(
    async () => {
      file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f)) ?? '';
      if (!file) return false;
      // Written synchronously by the process: whole once it ends the JSON and stops growing.
      const now = statSync(join(dir, file)).size;
      const grown = now !== size;
      size = now;
      if (grown || now < 16) return false;
      const tail = Buffer.alloc(16);
      const fd = openSync(join(dir, file), 'r');
      try {
        readSync(fd, tail, 0, 16, now - 16);
      } finally {
        closeSync(fd);
      }
      return /\]\s*\}\s*$/.test(tail.toString('latin1'));
    },
    { timeoutMs: 120_000, intervalMs: 100, what: 'the heap snapshot written' },
  );
  const snap = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const [typeAt, nameAt] = [fields.indexOf('type'), fields.indexOf('name')];
  const objectType = snap.snapshot.meta.node_types[0].indexOf('object');
  const objects = new Map<string, number>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    if (snap.nodes[i + typeAt] !== objectType) continue;
    const name = snap.strings[snap.nodes[i + nameAt]!]!;
    objects.set(name, (objects.get(name) ?? 0) + 1);
  }
  return { strings: snap.strings, objects };
}

/** The secret forms found among a snapshot's strings (substring match: a secret inside a longer string counts). */
function secretsIn(heap: HeapView, secrets: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [what, s] of secrets) if (heap.strings.some((x) => x.includes(s))) found.push(what);
  return found;
}

/**
 * Constructors whose instances carry a private key. (A CryptoKey alone may be a public key, which verifying
 * a sender's signature imports; its private kind is held by a PrivateKeyObject.)
 */
const KEY_HOLDERS = ['TreasuryKeys', 'Treasury', 'PrivateKeyObject', 'DepositIdentityMint'];

describe('key custody: role api holds no signing key', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  const dirs: string[] = [];
  const procs: HushProcess[] = [];
  let schema: string | undefined;
  let db: Db | undefined;
  after(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await db?.close();
    if (schema) await dropSchema(schema).catch(() => {});
    for (const d of dirs) removeDir(d);
  });
  const tempDir = (prefix: string) => {
    const d = makeTempDir(prefix);
    dirs.push(d);
    return d;
  };

  test('an API process beside a worker: quote → order → completed, with no seed in its environment, files or heap', { timeout: 300_000 }, async (t) => {
    const t0 = Date.now();
    const mark = (m: string) => t.diagnostic(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${m}`);
    schema = newSchemaName();
    const seed = randomBytes(32);
    const quoteKey = randomBytes(32).toString('hex');
    const store = { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema, HUSH_DRAIN_GRACE_MS: '0' };
    const snapshots = tempDir('hush-custody-heap-');
    const heapFlags = `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`;
    const workerDir = tempDir('hush-custody-worker-');
    const worker = await spawnHush(
      { ...store, HUSH_ROLE: 'worker', TREASURY_SEED: seed.toString('hex'), DATA_DIR: workerDir, PORT: '0', LOCALNET_PORT: '0', LOCALNET_SLOT_MS: '50', HUSH_SWEEP_INTERVAL_S: '1', NODE_OPTIONS: heapFlags },
      { label: 'worker', entry: 'tsx' },
    );
    procs.push(worker);
    const apiDir = tempDir('hush-custody-api-');
    const api = await spawnHush(
      { ...store, HUSH_ROLE: 'api', HUSH_QUOTE_KEY: quoteKey, DATA_DIR: apiDir, PORT: '0', SOLANA_RPC_URL: worker.chainUrl, NODE_OPTIONS: heapFlags },
      { label: 'api', entry: 'tsx' },
    );
    procs.push(api);
    mark('worker and API started');

    // A partner account, written to the shared store as an operator's admin call would.
    db = await openDb({ databaseUrl: POSTGRES_URL, dataDir: null, schema, clock: systemClock });
    const accountId = `acc_custody${Date.now()}`;
    await insertAccount(db, { id: accountId, name: accountId, feeCapBps: 100 });
    await updateAccount(db, accountId, { rateLimits: { quote: 1000, order: 1000, status: 1000, tokens: 1000 } });
    const key = generateApiKey(systemRandom);
    await insertApiKey(db, { keyId: key.keyId, accountId, secretHash: key.secretHash, expiresAt: null });
    const client = new HushClient(api.url!, key.apiKey);

    // Quote → order at the API; the worker, which alone holds the seed, settles it. The API may answer
    // 503 until the worker's published addresses have reached its inventory (a refresh, ≤ 2 s).
    const chain = chainAt(worker.chainUrl);
    const sender = await newWallet(chain, { sol: 2n * SOL });
    const recipient = (await generateKeyPairSigner()).address;
    const req = { amount: '100000000', sourceAssetId: 'sol' as const, destinationAssetId: 'sol' as const, senderAddress: sender.address, recipientAddress: recipient };
    await pollUntil(async () => (await client.quote(req)).status === 200, { timeoutMs: 30_000, intervalMs: 200, what: 'the API quoting from the published pools' });
    const placed = await placeOrder(client, req);
    mark('order created');
    const keys = new TreasuryKeys(new Uint8Array(seed));
    assert.equal(placed.depositOwner, keys.depositOwnerAddress(placed.trackingId), "the deposit owner is the seed's, for this trackingId: the worker can sweep it");
    assert.equal((await getOrderByTrackingId(db, placed.trackingId))?.depositOwner, placed.depositOwner);
    await depositWithRefresh(client, chain, placed, sender);
    const done = await waitForOrder(client, placed.trackingId, ['completed'], 90_000);
    assert.equal(done.status, 'completed');
    mark('order completed');

    // Its environment: no TREASURY_SEED, and the seed in no other variable either.
    const environ = readFileSync(`/proc/${api.proc.pid}/environ`, 'latin1').split('\0');
    assert.ok(!environ.some((v) => v.startsWith('TREASURY_SEED=')), 'TREASURY_SEED is not in the API environment');
    assert.ok(!environ.some((v) => forms(seed).some((f) => v.includes(f))), 'the seed is in no variable of the API');
    // Its files: it neither read nor generated a seed (the old code generated one in its DATA_DIR).
    assert.ok(!existsSync(join(apiDir, 'treasury-seed')), 'no treasury seed file in the API data dir');

    // Its heap: none of the seed's forms, nor of the keys derived from it; no object that holds a key.
    const secrets = new Map<string, string>();
    const feePayerSeed = keys.feePayerSeed();
    const derived: [string, Uint8Array][] = [
      ['seed', seed],
      ['fee payer key', feePayerSeed],
      ['pool key (sol 0)', keys.poolSeed(0, 0)],
      ['pool key (usdc 0)', keys.poolSeed(1, 0)],
      ['deposit master', keys.depositMasterKey],
      ['deposit owner key of the order', keys.depositOwnerSeed(placed.trackingId)],
    ];
    for (const [what, bytes] of derived) forms(bytes).forEach((f, i) => secrets.set(`${what} #${i}`, f));
    // The 64-byte secret key as Solana tools write it (private ‖ public, base58).
    secrets.set('fee payer keypair (base58)', bs58.encode(Buffer.concat([Buffer.from(feePayerSeed), bs58.decode(addressOfSeed(feePayerSeed))])));

    const apiHeap = await heapSnapshot(api, snapshots);
    mark('API heap read');
    const keyish = (h: HeapView) => [...h.objects].filter(([n]) => /Key|Treasury|Signer/.test(n)).map(([n, c]) => `${n}×${c}`).join(', ');
    t.diagnostic(`API heap: ${apiHeap.strings.length} strings; ${keyish(apiHeap)}`);
    assert.deepEqual(secretsIn(apiHeap, secrets), [], 'the API heap holds no form of the seed or of a key derived from it');
    assert.deepEqual(KEY_HOLDERS.filter((n) => apiHeap.objects.has(n)), [], 'the API heap holds no key-carrying object');

    // The same check on the worker finds what it holds: the check itself can fail.
    const workerHeap = await heapSnapshot(worker, snapshots);
    mark('worker heap read');
    assert.ok(secretsIn(workerHeap, secrets).includes('seed #0'), 'the worker heap holds the seed (hex, from its environment)');
    t.diagnostic(`worker heap: ${keyish(workerHeap)}`);
    for (const n of ['TreasuryKeys', 'Treasury', 'PrivateKeyObject']) assert.ok(workerHeap.objects.has(n), `the worker heap holds ${n} objects`);
  });
});

test('an api process with TREASURY_SEED in its environment is refused at start, naming the variable, not its value', { timeout: 150_000 }, async () => {
  const dir = makeTempDir('hush-custody-refused-');
  const seed = randomBytes(32).toString('hex');
  try {
    const err = await spawnHush({ HUSH_ROLE: 'api', TREASURY_SEED: seed, DATA_DIR: dir, PORT: '0', SOLANA_RPC_URL: 'http://127.0.0.1:9' }, { label: 'api with seed', timeoutMs: 120_000 }).then(
      (p) => (p.proc.kill('SIGKILL'), null),
      (e: Error) => e,
    );
    assert.ok(err, 'the API must not start');
    assert.match(err.message, /exited before it was ready \(1\)/);
    assert.match(err.message, /hush: cannot start: TREASURY_SEED is set for HUSH_ROLE=api/);
    assert.ok(!err.message.includes(seed), 'the refusal does not echo the seed');
    assert.ok(!existsSync(join(dir, 'treasury-seed')), 'nothing was written');
  } finally {
    removeDir(dir);
  }
});

test('config: role api on a shared store needs HUSH_QUOTE_KEY; a malformed key is refused; workers need none', () => {
  const pg = { DATABASE_URL: 'postgres://h@127.0.0.1/x' };
  assert.throws(() => loadConfig({ ...pg, HUSH_ROLE: 'api' }), (e) => e instanceof ConfigError && /HUSH_QUOTE_KEY/.test(e.message));
  assert.throws(() => loadConfig({ HUSH_ROLE: 'api', HUSH_QUOTE_KEY: 'abcd' }), (e) => e instanceof ConfigError && /at least 32 bytes/.test(e.message));
  assert.equal(loadConfig({ ...pg, HUSH_ROLE: 'api', HUSH_QUOTE_KEY: randomBytes(32).toString('base64') }).role, 'api');
  assert.equal(loadConfig({ ...pg, HUSH_ROLE: 'worker', TREASURY_SEED: randomBytes(32).toString('hex') }).role, 'worker');
  assert.throws(() => loadConfig({ HUSH_ROLE: 'api', TREASURY_SEED: randomBytes(32).toString('hex') }), (e) => e instanceof ConfigError && /TREASURY_SEED/.test(e.message));
});
