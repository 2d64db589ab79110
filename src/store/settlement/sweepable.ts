import type { Address } from '@solana/kit';
import { statusesSql } from './final-statuses.ts';

export interface UnsweptDeposit {
  orderId: string;
  trackingId: string;
  depositAccount: Address;
  /** Which seed derived it (a rotation's retired seed for an order placed before it). */
  depositOwner: Address;
  sourceAssetId: string;
  /** What the order's confirmed deposit put on the ledger (the account may hold more, sent since). */
  depositAmount: bigint;
}

/**
 * What makes a deposit sweepable: confirmed, not yet swept nor in a pending sweep, and every deposit
 * transaction handed out for its order (original and refreshed; the order keeps the greatest
 * lastValidBlockHeight of them) dead at `finalized`. A sweep closes the deposit account, and each of
 * those transactions creates it with the non-idempotent instruction: closed while one of them could still
 * land, the account could be created again and the sender charged a second time (docs/spec.md §4: only one of an
 * order's transactions can ever succeed).
 */
export const SWEEPABLE = `swept = false AND sweep_tx_id IS NULL AND deposit IS NOT NULL AND status NOT IN ${statusesSql('awaitsDeposit')}
  AND tx_last_valid_block_height < $1::bigint`;
