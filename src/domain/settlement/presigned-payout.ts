/**
 * A payout signed ahead, while its order waits for its due slot (the floor, docs/spec.md §9), is used at its
 * due time only if it would still be signed so then: its blockhash has most of its life left and its
 * compute-unit price is within the band of the price a payout gets now (PRICE_BAND_BPS). A presigned payout
 * was never recorded nor sent, so dropping it and signing afresh is always safe (docs/decisions.md,
 * "Presigned payouts").
 */

/** What a payout was signed with: the blockhash's life as fetched, and its price. */
export interface SignedWith {
  blockhash: string;
  /** When the blockhash was asked for (clock ms). */
  fetchedAt: number;
  /** Blocks it had left when fetched. */
  blocksLeftAtFetch: bigint;
  slotMs: number;
  /** Micro-lamports per compute unit. */
  computeUnitPrice: bigint;
}

/**
 * Blocks a presigned payout's blockhash must still have at its due time: two thirds of a blockhash's 150,
 * so that it keeps as long a window of resends as a payout signed at its due time from a blockhash fetched
 * a little earlier (a fresh one is handed out with at least three quarters of its life).
 */
export const PRESIGNED_MIN_BLOCKS_LEFT = 100n;

/** Blocks a blockhash has left at `now`, estimated from its fetch (slots are never assumed faster than slotMs). */
export function blocksLeftAt(s: Pick<SignedWith, 'fetchedAt' | 'blocksLeftAtFetch' | 'slotMs'>, now: number): bigint {
  const elapsed = BigInt(Math.max(0, Math.ceil((now - s.fetchedAt) / s.slotMs)));
  return s.blocksLeftAtFetch - elapsed;
}

export type PresignedVerdict = 'use' | 'blockhash_aging' | 'repriced';

/**
 * How far above the current price a presigned payout's price may be and still go (basis points over it): the
 * market moves a little from slot to slot, and re-signing every payout for it would waste the presign; a
 * quarter above overpays at most that, a fraction of what one more signature's wait would cost a recipient.
 * Never below: a price under the market's is what does not land.
 */
export const PRICE_BAND_BPS = 2_500n;

/** Whether `signed` is within the band of `current`: not below it, at most PRICE_BAND_BPS above. */
export function withinPriceBand(signed: bigint, current: bigint): boolean {
  return signed >= current && signed * 10_000n <= current * (10_000n + PRICE_BAND_BPS);
}

/** Pure: whether a presigned payout may go as signed, at `now`, when a payout is priced `price` now. */
export function presignedVerdict(s: SignedWith, now: number, price: bigint): PresignedVerdict {
  if (!withinPriceBand(s.computeUnitPrice, price)) return 'repriced';
  if (blocksLeftAt(s, now) < PRESIGNED_MIN_BLOCKS_LEFT) return 'blockhash_aging';
  return 'use';
}
