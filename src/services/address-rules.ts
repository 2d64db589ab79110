import { isAddress, isOffCurveAddress, type Address } from '@solana/kit';
import { HushError } from '../domain/errors.ts';

/** A base58 32-byte key, else INVALID_ADDRESS naming the field. */
export function requireAddress(value: string, field: string): Address {
  if (!isAddress(value)) throw new HushError('INVALID_ADDRESS', `${field} is not a valid Solana address`, { field });
  return value;
}

/** An ordinary wallet: a key on the ed25519 curve, not a program-derived address. */
export function requireWallet(value: string, field: string): Address {
  const a = requireAddress(value, field);
  if (isOffCurveAddress(a)) throw new HushError('INVALID_ADDRESS', `${field} must be an ordinary wallet address (on the ed25519 curve)`, { field });
  return a;
}
