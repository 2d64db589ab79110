/**
 * What settling one order costs Hush on chain, in lamports. The quote's networkFee is this, converted to
 * the source asset and rounded up (docs/spec.md §4): sweep share, payout transactions, the recipient's token
 * account rent when it must be created, and priority fees.
 */
export interface NetworkCostParams {
  lamportsPerSignature: bigint;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  tokenAccountRent: bigint;
  /** Deposits swept together in one transaction; its shared cost is split between them. */
  sweepBatch: number;
}

export const DEFAULT_NETWORK_COST: NetworkCostParams = {
  lamportsPerSignature: 5000n,
  computeUnitLimit: 100_000,
  computeUnitPriceMicroLamports: 1000n,
  tokenAccountRent: 2_039_280n,
  // The worker sweeps what is waiting at each tick, often a single deposit: charging a fraction of the
  // shared part would not cover a lone sweep, and networkFee must cover what Hush pays (docs/spec.md §4).
  sweepBatch: 1,
};

/**
 * The rent of an order's one-time deposit account (a token account, 165 bytes), which the sender pays in SOL beside
 * amountIn when its deposit transaction opens it. Hush's sweep closes the account and recovers it; an order's refund
 * sends it back to the sender (docs/decisions.md "A refund returns the deposit account's rent"). The quote states it in
 * feeBreakdown.depositAccountRent.
 */
export const DEPOSIT_ACCOUNT_RENT = DEFAULT_NETWORK_COST.tokenAccountRent;

/**
 * Rent-exempt minimum of an account without data (a wallet) at the network's default rent: SOL sent to an
 * address that holds none must be at least this, or the transfer fails (InsufficientFundsForRent).
 */
export const WALLET_RENT = 890_880n;

function priorityFee(p: Pick<NetworkCostParams, 'computeUnitLimit' | 'computeUnitPriceMicroLamports'>): bigint {
  return (BigInt(p.computeUnitLimit) * p.computeUnitPriceMicroLamports + 999_999n) / 1_000_000n;
}

export interface SettlementShape {
  /** Payouts of native SOL are system transfers and need no token account. */
  destinationNative: boolean;
  /**
   * Share (bps) of the token account's rent to charge: 10000 when this recipient lacks one, 0 when it has
   * one, and the expected share of recipients without one for the flat fee every quote carries (docs/spec.md §9:
   * a fee that depends on the recipient tells the recipient's state apart).
   */
  tokenAccountRentBps: number;
  payoutCount: number;
}

export function settlementLamports(p: NetworkCostParams, s: SettlementShape): bigint {
  const txBase = p.lamportsPerSignature + priorityFee(p);
  const batch = BigInt(Math.max(1, p.sweepBatch));
  // Sweep: the deposit owner's signature is per deposit; fee payer and priority fee are shared.
  const sweepShare = p.lamportsPerSignature + (txBase + batch - 1n) / batch;
  // Payout: fee payer + pool wallet signatures, one transaction per payout part.
  const payouts = BigInt(Math.max(1, s.payoutCount)) * (txBase + p.lamportsPerSignature);
  const rent = s.destinationNative ? 0n : (p.tokenAccountRent * BigInt(s.tokenAccountRentBps) + 9_999n) / 10_000n;
  return sweepShare + payouts + rent;
}
