/**
 * Shared helpers for the localnet test suite: an in-process localnet on a free port with a fresh
 * DATA_DIR, the CLI as a child process, and small kit-based builders for signed transactions.
 *
 * Every RPC method is called through `@solana/kit`'s `createSolanaRpc`; only the custom
 * `localnet_requestTokenAirdrop` and protocol-level probes (malformed JSON, oversized bodies) go
 * through plain `fetch`, because kit has no way to express them.
 */
import { after, before } from 'node:test';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type SolanaRpcApi,
  type Rpc,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startLocalnet, type RunningLocalnet } from '../../src/localnet/start-localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { cliCommand } from './cli-command.ts';

export type LocalRpc = Rpc<SolanaRpcApi>;

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const MINTS = {
  USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address,
  USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' as Address,
  BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' as Address,
  WSOL: 'So11111111111111111111111111111111111111112' as Address,
} as const;

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;
export const LAMPORTS_PER_SIGNATURE = 5000n;
export const SOL = 1_000_000_000n;

export function makeTempDir(prefix = 'hush-localnet-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- in-process localnet

export interface TestLocalnet {
  url: string;
  rpc: LocalRpc;
  net: RunningLocalnet;
  dataDir: string;
  slotMs: number;
  /** Closes the server and chain; removes the data dir unless `keepData`. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/** Starts `startLocalnet` on 127.0.0.1, port 0, with a fresh temp DATA_DIR (or the given one). */
export async function startTestLocalnet(opts: { slotMs?: number; dataDir?: string } = {}): Promise<TestLocalnet> {
  const dataDir = opts.dataDir ?? makeTempDir();
  const slotMs = opts.slotMs ?? 50;
  const net = await startLocalnet({ host: '127.0.0.1', port: 0, slotMs, dataDir }, systemClock, systemRandom);
  return {
    url: net.url,
    rpc: createSolanaRpc(net.url),
    net,
    dataDir,
    slotMs,
    async close(closeOpts = {}) {
      await net.close();
      if (!closeOpts.keepData) removeDir(dataDir);
    },
  };
}

// ---------------------------------------------------------------- child-process localnet

/**
 * A local chain with a fault-injecting, counting JSON-RPC proxy in front of it for a test file's tests
 * (registers the file's before and after hooks); read `net.chain` and `net.proxy` inside tests.
 */
export function proxiedLocalnet(): { chain: TestLocalnet; proxy: RpcFaultProxy } {
  const net = {} as { chain: TestLocalnet; proxy: RpcFaultProxy };
  before(async () => {
    net.chain = await startTestLocalnet();
    net.proxy = await startRpcFaultProxy(net.chain.url, systemClock, systemRandom);
  });
  after(async () => {
    await net.proxy?.close();
    await net.chain?.close();
  });
  return net;
}

export interface ChildLocalnet {
  url: string;
  port: number;
  rpc: LocalRpc;
  proc: ChildProcess;
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code / signal once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `node --import tsx src/cli/localnet.ts` with DATA_DIR / LOCALNET_PORT / LOCALNET_SLOT_MS and
 * waits until it prints its URL and answers getHealth. Port 0 lets the OS choose; the chosen port is
 * read from the startup line.
 */
export async function spawnLocalnet(opts: { dataDir: string; port?: number; slotMs: number; timeoutMs?: number }): Promise<ChildLocalnet> {
  const proc = spawn(process.execPath, cliCommand('localnet'), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATA_DIR: opts.dataDir,
      LOCALNET_HOST: '127.0.0.1',
      LOCALNET_PORT: String(opts.port ?? 0),
      LOCALNET_SLOT_MS: String(opts.slotMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => proc.once('exit', (code, signal) => res({ code, signal })));

  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let url: string | null = null;
  while (url === null) {
    const m = /Solana JSON-RPC at (http:\/\/[^\s]+)/.exec(out);
    if (m) url = m[1]!;
    else if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`localnet exited before it was ready:\n${out}`);
    else if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`localnet did not start in time:\n${out}`);
    } else await sleep(20);
  }
  const rpc = createSolanaRpc(url);
  await pollUntil(async () => (await rpc.getHealth().send()) === 'ok', { timeoutMs: 10_000, what: 'getHealth ok' });
  return {
    url,
    port: Number(new URL(url).port),
    rpc,
    proc,
    output: () => out,
    async stop(signal) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

// ---------------------------------------------------------------- polling

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `f` until it returns a non-null, non-false value; fails with `what` after the deadline. */
export async function pollUntil<T>(f: () => Promise<T | null | undefined | false>, opts: { timeoutMs?: number; intervalMs?: number; what: string }): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let lastError: unknown = null;
  for (;;) {
    try {
      const v = await f();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what}${lastError ? `: ${String(lastError)}` : ''}`);
    await sleep(opts.intervalMs ?? 10);
  }
}

/** Waits until the processed slot is at least `slot`. */
export async function waitForSlot(rpc: LocalRpc, slot: bigint, timeoutMs = 20_000): Promise<bigint> {
  return pollUntil(
    async () => {
      const s = await rpc.getSlot({ commitment: 'processed' }).send();
      return s >= slot ? s : null;
    },
    { timeoutMs, what: `slot ${slot}` },
  );
}

/** `timeoutMs`: as waitForConfirmed's, a bound for a loaded machine (three runnable processes per core), not a figure. */
export async function waitForStatus(rpc: LocalRpc, signature: Signature, level: 'processed' | 'confirmed' | 'finalized', timeoutMs = 60_000) {
  const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
  return pollUntil(
    async () => {
      const [st] = (await rpc.getSignatureStatuses([signature]).send()).value;
      return st && st.confirmationStatus && rank[st.confirmationStatus] >= rank[level] ? st : null;
    },
    { timeoutMs, what: `${signature} to be ${level}` },
  );
}

// ---------------------------------------------------------------- transactions

export async function buildSignedTransaction(
  feePayer: KeyPairSigner,
  instructions: Instruction[],
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint },
): Promise<{ wire: Base64EncodedWireTransaction; signature: Signature }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}

export async function latestBlockhash(rpc: LocalRpc) {
  return (await rpc.getLatestBlockhash({ commitment: 'processed' }).send()).value;
}

/** A signed SOL transfer, using the processed blockhash unless one is given. */
export async function transferTx(
  rpc: LocalRpc,
  from: KeyPairSigner,
  to: Address,
  amount: bigint,
  lifetime?: { blockhash: Blockhash; lastValidBlockHeight: bigint },
) {
  return buildSignedTransaction(from, [getTransferSolInstruction({ source: from, destination: to, amount })], lifetime ?? (await latestBlockhash(rpc)));
}

export async function send(rpc: LocalRpc, wire: Base64EncodedWireTransaction, opts: { skipPreflight?: boolean } = {}): Promise<Signature> {
  return rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: opts.skipPreflight, preflightCommitment: 'processed' }).send();
}

/** A new keypair funded by `requestAirdrop`, waited on until its airdrop is confirmed. */
export async function fundedWallet(rpc: LocalRpc, amount = 10n * SOL): Promise<KeyPairSigner> {
  const w = await generateKeyPairSigner();
  const sig = await rpc.requestAirdrop(w.address, lamports(amount)).send();
  await waitForStatus(rpc, sig, 'confirmed');
  return w;
}

// ---------------------------------------------------------------- raw JSON-RPC (custom method and protocol probes)

export interface RawResponse {
  status: number;
  body: any;
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<RawResponse> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? '' : JSON.parse(text);
  } catch {
    /* left as text */
  }
  return { status: res.status, body: parsed };
}

/** `localnet_requestTokenAirdrop(owner, mint, amount)`; throws with the JSON-RPC error on failure. */
export async function requestTokenAirdrop(url: string, owner: Address, mint: Address, amount: bigint | number | string): Promise<Signature> {
  const amountJson = typeof amount === 'bigint' ? amount.toString() : JSON.stringify(amount);
  const body = `{"jsonrpc":"2.0","id":1,"method":"localnet_requestTokenAirdrop","params":[${JSON.stringify(owner)},${JSON.stringify(mint)},${amountJson}]}`;
  const res = await postRaw(url, body);
  if (res.body?.error) throw Object.assign(new Error(`localnet_requestTokenAirdrop: ${res.body.error.message}`), { rpcError: res.body.error });
  return res.body.result as Signature;
}
