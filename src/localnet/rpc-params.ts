import { isAddress, type Address } from '@solana/kit';
import type { Commitment } from './local-chain.ts';

/** A JSON-RPC error with the codes the Solana RPC uses. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const BLOCK_CLEANED_UP = -32001;
export const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
export const BLOCK_NOT_AVAILABLE = -32004;
export const SLOT_SKIPPED = -32007;
export const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const UNSUPPORTED_TRANSACTION_VERSION = -32015;
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

export function invalidParams(detail: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${detail}`);
}

export function param(params: unknown[], i: number, name: string): unknown {
  if (params.length <= i) throw invalidParams(`missing field \`${name}\``);
  return params[i];
}

export function asAddress(v: unknown, name = 'pubkey'): Address {
  if (typeof v !== 'string' || !isAddress(v)) throw new RpcError(INVALID_PARAMS, `Invalid param: Invalid ${name}`);
  return v;
}

export function asU64(v: unknown, name: string): bigint {
  if (typeof v === 'bigint' && v >= 0n && v < 1n << 64n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw invalidParams(`invalid type for \`${name}\`: expected u64`);
}

export function asUsize(v: unknown, name: string, max: number): number {
  const n = asU64(v, name);
  if (n > BigInt(max)) throw invalidParams(`\`${name}\` must be at most ${max}`);
  return Number(n);
}

export function asString(v: unknown, name: string): string {
  if (typeof v !== 'string') throw invalidParams(`invalid type for \`${name}\`: expected a string`);
  return v;
}

export function asBool(v: unknown, name: string): boolean {
  if (typeof v !== 'boolean') throw invalidParams(`invalid type for \`${name}\`: expected a boolean`);
  return v;
}

export type Config = Record<string, unknown>;

/** The optional trailing configuration object; unknown keys are rejected as the real node does. */
export function config(params: unknown[], i: number, allowed: readonly string[]): Config {
  const v = params[i];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams('invalid type: expected a configuration object');
  for (const k of Object.keys(v)) if (!allowed.includes(k)) throw invalidParams(`unknown field \`${k}\``);
  return v as Config;
}

const legacyCommitments: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  max: 'finalized',
  root: 'finalized',
};

export function commitmentOf(cfg: Config, key = 'commitment', fallback: Commitment = 'finalized'): Commitment {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  const c = typeof v === 'string' ? legacyCommitments[v] : undefined;
  if (!c) throw invalidParams(`unknown variant \`${String(v)}\` for commitment`);
  return c;
}

export function checkParamCount(params: unknown[], max: number): void {
  if (params.length > max) throw invalidParams(`expected at most ${max} parameters, got ${params.length}`);
}
