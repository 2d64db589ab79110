import { DEFAULT_NETWORK_COST } from './network-cost.ts';

/** Lamports a SOL pool keeps so it stays rent-exempt. */
export const SOL_POOL_RESERVE = 10_000_000n;

/**
 * What a pool can pay from, by its balance at some commitment: a SOL pool's lamports less its
 * reserve (negative when below it), a token pool's token amount.
 */
export function spendableBalance(native: boolean, balance: { lamports: bigint; tokenAmount: bigint | null } | undefined): bigint {
  return native ? (balance?.lamports ?? 0n) - SOL_POOL_RESERVE : (balance?.tokenAmount ?? 0n);
}

/** A wrapped-SOL account's reserve: a token account's rent-exempt minimum. */
export const WRAPPED_SOL_RESERVE = DEFAULT_NETWORK_COST.tokenAccountRent;

/** A wrapped-SOL account's lamports as its token amount (what SyncNative would record). */
export function aboveWrappedSolReserve(lamports: bigint): bigint {
  return lamports > WRAPPED_SOL_RESERVE ? lamports - WRAPPED_SOL_RESERVE : 0n;
}
