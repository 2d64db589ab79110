import type { Address } from '@solana/kit';
import { depositAccountOf } from '../chain/deposit-transaction.ts';
import { addressOfSeed, depositOwnerSeedOf } from './treasury-keys.ts';
import { newTrackingId } from '../domain/tracking-id.ts';

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

export function deriveDepositIdentity(depositMaster: Uint8Array, mint: Address, tokenProgram: Address): DepositIdentity {
  const trackingId = newTrackingId();
  const depositOwner = addressOfSeed(depositOwnerSeedOf(depositMaster, trackingId));
  return { trackingId, depositOwner, ...depositAccountOf(depositOwner, mint, tokenProgram) };
}
