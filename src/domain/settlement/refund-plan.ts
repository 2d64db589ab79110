import { WALLET_RENT } from '../network-cost.ts';

/**
 * A refund returns the deposit less the order's network fee. Nothing (`below_cost`) when that leaves
 * nothing; `below_rent` when it is SOL below a wallet's rent to an address holding no SOL, which fails
 * on chain every time (the account it would open is not rent-exempt).
 */
export type RefundPlan = { kind: 'refund'; amount: bigint } | { kind: 'below_cost' } | { kind: 'below_rent'; amount: bigint };

/** Whether the recipient's lamports must be read to know if `amount` can land (see cannotReceiveSol). */
export function needsRecipientLamports(native: boolean, amount: bigint): boolean {
  return native && amount < WALLET_RENT;
}

/** SOL below a wallet's rent sent to an address holding none fails on chain, every time. */
export function cannotReceiveSol(native: boolean, amount: bigint, recipientLamports: bigint): boolean {
  return needsRecipientLamports(native, amount) && recipientLamports === 0n;
}

/**
 * `recipientLamports`: read only when needsRecipientLamports says so (anything otherwise). `rentBack`: lamports sent to
 * the same address in the same transaction (the deposit account's rent, more than a wallet's): with it, SOL below a
 * wallet's rent lands, and a token refund leaves a sender holding no SOL a rent-exempt wallet.
 */
export function refundPlan(deposited: bigint, networkFee: bigint, native: boolean, recipientLamports: bigint, rentBack = 0n): RefundPlan {
  const amount = deposited - networkFee;
  if (amount <= 0n) return { kind: 'below_cost' };
  if (cannotReceiveSol(native, amount + rentBack, recipientLamports)) return { kind: 'below_rent', amount };
  return { kind: 'refund', amount };
}
