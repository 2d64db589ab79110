/**
 * bench:localnet — signed v0 SOL transfers per second sent over JSON-RPC to the embedded chain (a separate
 * process, as partners use it) and confirmed, next to the same transfers processed in-process by LiteSVM
 * in the same run. Target: JSON-RPC throughput ≥ 50% of in-process, confirmation polling included. The chain keeps
 * its block history meanwhile (src/localnet/block-history.ts); what that and the whole chain hold per 10,000
 * transactions is printed too.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { BlockHistory, BLOCK_HISTORY_SLOTS } from '../src/localnet/block-history.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { LiteSVM, FailedTransactionMetadata } from 'litesvm';
import {
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type KeyPairSigner,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 20000);
const SENDERS = 64;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const BATCH = 100;
const BATCHES_IN_FLIGHT = Number(process.env.BENCH_BATCHES_IN_FLIGHT ?? 4);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function signTransfers(senders: KeyPairSigner[], recipient: KeyPairSigner, blockhash: string, lastValidBlockHeight: bigint): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (let i = 0; i < TRANSFERS; i++) {
    const source = senders[i % senders.length]!;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(source, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(blockhash), lastValidBlockHeight }, m),
      // A distinct amount per transfer keeps every signature unique.
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source, destination: recipient.address, amount: 1_000n + BigInt(i) }), m),
    );
    out.push(await signTransactionMessageWithSigners(message));
  }
  return out;
}

async function inProcess(senders: KeyPairSigner[], recipient: KeyPairSigner): Promise<number> {
  const svm = new LiteSVM();
  for (const s of [...senders, recipient]) svm.airdrop(s.address, lamports(100_000_000_000n));
  const txs = await signTransfers(senders, recipient, svm.latestBlockhash(), 0n);
  const t0 = performance.now();
  let ok = 0;
  for (const tx of txs) {
    const r = svm.sendTransaction(tx);
    if (r instanceof FailedTransactionMetadata) throw new Error(`in-process transfer failed: ${r.toString()}`);
    ok++;
  }
  const seconds = (performance.now() - t0) / 1000;
  if (ok !== TRANSFERS) throw new Error(`in-process: only ${ok}/${TRANSFERS} landed`);
  return TRANSFERS / seconds;
}

/** Resident memory of a process (Linux /proc), in bytes; null where unavailable. */
function rssOf(pid: number | undefined): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The block history's own heap per transaction: signatures are strings the signature history holds anyway, so
 * they are made before the first measurement; the ring's typed arrays are its fixed cost.
 */
function blockHistoryCost(transactions: number): { fixedBytes: number; perTransaction: number } {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const signatures = Array.from({ length: transactions }, (_v, i) => `signature-${i}-${Math.random()}`);
  const writable = ['a', 'b', 'c'];
  gc();
  const before = process.memoryUsage();
  const history = new BlockHistory();
  const fixed = process.memoryUsage().arrayBuffers - before.arrayBuffers;
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  // Slots of 400 transactions, as the JSON-RPC runs above fill them.
  for (let i = 0; i < transactions; i++) {
    if (i % 400 === 0) history.open(i / 400, 0);
    history.add(Math.floor(i / 400), signatures[i]!, { price: 0n, writable });
  }
  gc();
  const perTransaction = (process.memoryUsage().heapUsed - heap0) / transactions;
  if (history.transactionCount !== transactions) throw new Error('block history lost transactions');
  return { fixedBytes: fixed, perTransaction };
}

async function overRpc(senders: KeyPairSigner[], recipient: KeyPairSigner, mode: 'kit' | 'batch'): Promise<{ tps: number; p50: number; p99: number; rssPerTx: number | null }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hush-bench-localnet-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []), '--import', 'tsx', 'src/cli/localnet.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, LOCALNET_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('JSON-RPC at') && resolve());
      child.once('exit', (code) => reject(new Error(`localnet exited with ${code}`)));
    });
    const rpc = createSolanaRpc(`http://127.0.0.1:${port}`);
    const funding = await Promise.all([...senders, recipient].map((s) => rpc.requestAirdrop(s.address, lamports(100_000_000_000n)).send()));
    await waitConfirmed(rpc, funding);
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const wires = (await signTransfers(senders, recipient, latest.blockhash, latest.lastValidBlockHeight)).map((t) => getBase64EncodedWireTransaction(t));
    const rssBefore = rssOf(child.pid);

    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const t0 = performance.now();
    const signatures: Signature[] = [];
    if (mode === 'kit') {
      // One HTTP request per transaction through kit's RPC client, as a typical partner integration sends.
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < wires.length) {
            const wire = wires[next++]!;
            const sig = await rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'processed' }).send();
            sentAt.set(sig, performance.now());
            signatures.push(sig);
          }
        }),
      );
    } else {
      // JSON-RPC 2.0 batches (an array of requests per POST), as high-volume senders do.
      const batches: string[][] = [];
      for (let i = 0; i < wires.length; i += BATCH) batches.push(wires.slice(i, i + BATCH));
      let next = 0;
      await Promise.all(
        Array.from({ length: BATCHES_IN_FLIGHT }, async () => {
          while (next < batches.length) {
            const batch = batches[next++]!;
            const body = JSON.stringify(batch.map((w, id) => ({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [w, { encoding: 'base64' }] })));
            const res = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
            const out = (await res.json()) as { result?: Signature; error?: unknown }[];
            const now = performance.now();
            for (const r of out) {
              if (!r.result) throw new Error(`send failed: ${JSON.stringify(r.error)}`);
              sentAt.set(r.result, now);
              signatures.push(r.result);
            }
          }
        }),
      );
    }
    const sentSeconds = (performance.now() - t0) / 1000;
    if (process.env.BENCH_VERBOSE) console.log(`  (${mode}: all ${signatures.length} sent in ${sentSeconds.toFixed(2)} s)`);
    // Confirmation polling, as a client does it: batches of 256 signatures until every one is confirmed. The
    // batch sender polls with plain JSON-RPC like it sends: kit's response transform (bigint upcasting of
    // every status) costs this client ~400 ms of its core for 20,000 statuses, which is not server time.
    let pending = signatures;
    while (pending.length > 0) {
      const chunks: Signature[][] = [];
      for (let i = 0; i < pending.length; i += 256) chunks.push(pending.slice(i, i + 256));
      // All chunks of a round in parallel, as a client tracking many transactions would.
      const roundStart = performance.now();
      const rounds = await Promise.all(chunks.map(async (chunk) => ({ chunk, value: mode === 'kit' ? (await rpc.getSignatureStatuses(chunk).send()).value : await rawStatuses(port, chunk) })));
      const now = performance.now();
      if (process.env.BENCH_VERBOSE) console.log(`  (poll of ${pending.length} at ${((roundStart - t0) / 1000).toFixed(2)} s took ${(now - roundStart).toFixed(0)} ms)`);
      const still: Signature[] = [];
      for (const { chunk, value } of rounds) {
        value.forEach((st, j) => {
          const sig = chunk[j]!;
          if (st && st.err) throw new Error(`transfer ${sig} failed: ${JSON.stringify(st.err)}`);
          if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized')) latencies.push(now - sentAt.get(sig)!);
          else still.push(sig);
        });
      }
      pending = still;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const rssAfter = rssOf(child.pid);
    const rssPerTx = rssBefore !== null && rssAfter !== null ? (rssAfter - rssBefore) / TRANSFERS : null;
    return { tps: TRANSFERS / seconds, p50: latencies[Math.floor(latencies.length * 0.5)]!, p99: latencies[Math.floor(latencies.length * 0.99)]!, rssPerTx };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type RawStatus = { err: unknown; confirmationStatus: string } | null;
async function rawStatuses(port: number, signatures: Signature[]): Promise<RawStatus[]> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [signatures] });
  const res = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const out = (await res.json()) as { result?: { value: RawStatus[] }; error?: unknown };
  if (!out.result) throw new Error(`getSignatureStatuses failed: ${JSON.stringify(out.error)}`);
  return out.result.value;
}

async function waitConfirmed(rpc: ReturnType<typeof createSolanaRpc>, sigs: Signature[]): Promise<void> {
  for (;;) {
    const { value } = await rpc.getSignatureStatuses(sigs).send();
    if (value.every((s) => s && s.confirmationStatus !== 'processed')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const senders = await Promise.all(Array.from({ length: SENDERS }, () => generateKeyPairSigner()));
const recipient = await generateKeyPairSigner();
const baseline = await inProcess(senders, recipient);
const batched = await overRpc(senders, recipient, 'batch');
const single = process.env.BENCH_ONLY_BATCH ? null : await overRpc(senders, recipient, 'kit');
const line = (label: string, r: { tps: number; p50: number; p99: number }) =>
  `  ${label.padEnd(44)} ${r.tps.toFixed(0).padStart(7)} tx/s  ratio ${(r.tps / baseline).toFixed(2)}   send→confirmed p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms`;
console.log(`bench:localnet  ${TRANSFERS} signed v0 SOL transfers from ${SENDERS} wallets, slot 400 ms, confirmation polled at 'confirmed'`);
console.log(`  ${'in-process LiteSVM (baseline)'.padEnd(44)} ${baseline.toFixed(0).padStart(7)} tx/s`);
console.log(line(`JSON-RPC batches of ${BATCH}, ${BATCHES_IN_FLIGHT} in flight`, batched));
if (single) console.log(line(`kit createSolanaRpc, ${IN_FLIGHT} requests in flight`, single));
const ratio = batched.tps / baseline;
console.log(`  target: JSON-RPC ≥ 0.50 × in-process → ${ratio.toFixed(2)} ${ratio >= 0.5 ? 'PASS' : 'MISS'}`);
const cost = blockHistoryCost(10_000);
const mb = (b: number) => (b / 1024 / 1024).toFixed(2);
console.log(`memory per 10,000 transactions:`);
console.log(`  block history (ring of ${BLOCK_HISTORY_SLOTS} slots): ${mb(cost.perTransaction * 10_000)} MB of heap, plus ${mb(cost.fixedBytes)} MB fixed for the ring`);
for (const [label, r] of [['batches', batched], ['kit', single]] as const) {
  if (r?.rssPerTx != null) console.log(`  local chain process, resident growth over the ${label} run (everything it keeps): ${mb(r.rssPerTx * 10_000)} MB`);
}
