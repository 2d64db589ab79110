import { base58Decode } from './base58-cache.ts';
import type { Commitment, LocalChain } from './local-chain.ts';
import { asU64, RpcError, INVALID_PARAMS, MIN_CONTEXT_SLOT_NOT_REACHED, type Config } from './rpc-params.ts';

/** What this node reports as its version: the Agave line whose RPC shapes it follows. */
export const NODE_VERSION = { 'solana-core': '2.2.0', 'feature-set': 3294202862 } as const;
const API_VERSION = NODE_VERSION['solana-core'];

export type Method = (chain: LocalChain, params: unknown[]) => unknown;

export function contextSlot(chain: LocalChain, cfg: Config, commitment: Commitment): bigint {
  const slot = chain.commitmentSlot(commitment);
  if (cfg.minContextSlot !== undefined && cfg.minContextSlot !== null) {
    const min = asU64(cfg.minContextSlot, 'minContextSlot');
    if (slot < min) throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return slot;
}

export function withContext(slot: bigint, value: unknown) {
  return { context: { apiVersion: API_VERSION, slot }, value };
}

export function asSignature(v: unknown, chain: LocalChain): string {
  if (typeof v !== 'string' || v.length < 64 || v.length > 88) throw new RpcError(INVALID_PARAMS, 'Invalid param: Invalid signature');
  // Status polling sends mostly signatures the chain already holds; decoding each one was a tenth of the
  // server's time under load, and a recorded signature is valid by construction.
  if (chain.knowsSignature(v)) return v;
  try {
    if (base58Decode(v).length !== 64) throw new Error('length');
  } catch {
    throw new RpcError(INVALID_PARAMS, 'Invalid param: Invalid signature');
  }
  return v;
}
