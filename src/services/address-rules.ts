import { isAddress, isOffCurveAddress, type Address } from '@solana/kit';
import { HushError } from '../domain/errors.ts';

/**
 * Address checks, memoized: the curve check runs JS BigInt math (tens of µs) and partners quote the
 * same wallets repeatedly.
 */
const MAX = 50_000;
const onCurve = new Map<string, boolean>();

function remember<K, V>(m: Map<K, V>, k: K, v: V): V {
  if (m.size >= MAX) m.clear();
  m.set(k, v);
  return v;
}

/** A base58 32-byte key, else INVALID_ADDRESS naming the field. */
export function requireAddress(value: string, field: string): Address {
  if (!onCurve.has(value) && !isAddress(value)) throw new HushError('INVALID_ADDRESS', `${field} is not a valid Solana address`, { field });
  return value as Address;
}

/** An ordinary wallet: a key on the ed25519 curve, not a program-derived address. */
export function requireWallet(value: string, field: string): Address {
  const a = requireAddress(value, field);
  const ok = onCurve.get(a) ?? remember(onCurve, a, !isOffCurveAddress(a));
  if (!ok) throw new HushError('INVALID_ADDRESS', `${field} must be an ordinary wallet address (on the ed25519 curve)`, { field });
  return a;
}
