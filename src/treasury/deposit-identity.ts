import type { Address } from '@solana/kit';
import { depositAccountOf } from '../chain/deposit-transaction.ts';
import { addressOfSeed, depositOwnerSeedOf } from './treasury-keys.ts';

/** What an order needs before it exists: its name, its one-time deposit owner and that owner's token account. */
export interface DepositIdentity {
  trackingId: string;
  depositOwner: Address;
  depositAccount: Address;
  /** Bump seeds tried before the deposit account's: its creation costs compute units for each. */
  extraBumpTries: number;
}

export interface DepositIdentityRequest {
  key: string;
  mint: string;
  tokenProgram: string;
}

/** The identity of the order named `trackingId` (drawn by the caller: newTrackingId). */
export function deriveDepositIdentity(depositMaster: Uint8Array, mint: Address, tokenProgram: Address, trackingId: string): DepositIdentity {
  const depositOwner = addressOfSeed(depositOwnerSeedOf(depositMaster, trackingId));
  return { trackingId, depositOwner, ...depositAccountOf(depositOwner, mint, tokenProgram) };
}
