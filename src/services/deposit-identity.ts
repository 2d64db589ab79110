import type { Address } from '@solana/kit';
import { associatedTokenAddressSync } from '../chain/program-derived-address.ts';
import { addressOfSeed, depositOwnerSeedOf } from '../treasury/treasury-keys.ts';
import { newTrackingId } from './tracking-id.ts';

/** What an order needs before it exists: its name, its one-time deposit owner and that owner's token account. */
export interface DepositIdentity {
  trackingId: string;
  depositOwner: Address;
  depositAccount: Address;
}

export interface DepositIdentityRequest {
  key: string;
  mint: string;
  tokenProgram: string;
}

export function deriveDepositIdentity(depositMaster: Uint8Array, mint: Address, tokenProgram: Address): DepositIdentity {
  const trackingId = newTrackingId();
  const depositOwner = addressOfSeed(depositOwnerSeedOf(depositMaster, trackingId));
  return { trackingId, depositOwner, depositAccount: associatedTokenAddressSync(depositOwner, mint, tokenProgram) };
}
