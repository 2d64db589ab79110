/**
 * A local chain in the test's process whose slots move only when the test closes them (`chain.advanceSlot()`),
 * served over its JSON-RPC handlers without a socket, for the congested chain's tests: what a slot's block
 * takes is then decided by the test's sends and the seed, never by a timer racing them.
 */
import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { blockhash as toBlockhash, generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import type { CongestionOptions } from '../../src/localnet/congestion-profile.ts';
import { LocalChain } from '../../src/localnet/local-chain.ts';
import { buildRpcServer } from '../../src/localnet/rpc-server.ts';
import { seededRandom } from '../../src/support/random.ts';
import { buildSignedTransaction } from './localnet.ts';
import { ManualClock } from './manual-clock.ts';

export interface RpcAnswer {
  result?: any;
  error?: { code: number; message: string; data?: any };
}

export interface SteppedChain {
  chain: LocalChain;
  /** One JSON-RPC call through the chain's handlers (a lagging view's, when given). */
  call(method: string, params?: unknown[], server?: FastifyInstance): Promise<RpcAnswer>;
  /** Closes `n` slots. */
  advance(n?: number): void;
  close(): Promise<void>;
}

export async function steppedChain(congestion: CongestionOptions | null = null): Promise<SteppedChain> {
  const chain = await LocalChain.open({ dataDir: null, slotMs: 400, clock: new ManualClock(Date.UTC(2026, 0, 1)), random: seededRandom(3), congestion });
  const rpc = buildRpcServer(chain);
  return {
    chain,
    async call(method, params = [], server = rpc) {
      const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      const res = await server.inject({ method: 'POST', url: '/', payload, headers: { 'content-type': 'application/json' } });
      return parseJsonWithBigInts(res.body) as RpcAnswer;
    },
    advance(n = 1) {
      for (let i = 0; i < n; i++) chain.advanceSlot();
    },
    async close() {
      chain.close();
      await rpc.close();
    },
  };
}

/** A wallet the faucet funded (airdrops skip the leader's queue: they land in the slot they are asked in). */
export async function faucetWallet(c: SteppedChain, lamports = 100_000_000_000n): Promise<KeyPairSigner> {
  const w = await generateKeyPairSigner();
  const answer = await c.call('requestAirdrop', [w.address, Number(lamports)]);
  if (answer.error) throw new Error(answer.error.message);
  return w;
}

/** A SOL transfer carrying a compute budget, signed on the chain's newest blockhash (or the one given). */
export async function pricedTransfer(
  c: SteppedChain,
  from: KeyPairSigner,
  opts: { to?: Address; microLamports: bigint; units?: number; amount?: bigint; blockhash?: { blockhash: string; lastValidBlockHeight: bigint } },
): Promise<{ wire: string; signature: string }> {
  const to = opts.to ?? (await generateKeyPairSigner()).address;
  const b = opts.blockhash ?? c.chain.latestBlockhash('processed');
  return buildSignedTransaction(
    from,
    [
      getSetComputeUnitLimitInstruction({ units: opts.units ?? 100_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: opts.microLamports }),
      getTransferSolInstruction({ source: from, destination: to, amount: opts.amount ?? 1_000_000n }),
    ],
    { blockhash: toBlockhash(b.blockhash), lastValidBlockHeight: b.lastValidBlockHeight },
  );
}

export async function sendWire(c: SteppedChain, wire: string, opts: { skipPreflight?: boolean; server?: FastifyInstance } = {}): Promise<RpcAnswer> {
  return c.call('sendTransaction', [wire, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false, maxRetries: 0 }], opts.server);
}

/** The signature's status as getSignatureStatuses answers it (null: the chain has not seen it land). */
export async function statusOf(c: SteppedChain, signature: string, server?: FastifyInstance): Promise<{ slot: bigint; confirmationStatus: string } | null> {
  const answer = await c.call('getSignatureStatuses', [[signature]], server);
  return answer.result.value[0];
}
