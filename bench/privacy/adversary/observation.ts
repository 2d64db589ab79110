/**
 * What the adversary sees: Hush's deposits and payouts as anyone can read them from the chain (see
 * observe-chain.ts). Nothing here comes from Hush's store or from the bench's ground truth.
 */

export interface ObservedDeposit {
  /** The deposit transaction's signature. */
  signature: string;
  /** The one-time deposit token account (later swept by Hush). */
  account: string;
  /** Fee payer of the deposit transaction: the sender. */
  sender: string;
  assetId: string;
  amount: bigint;
  slot: number;
  blockhash: string;
  /** Every account the deposit transaction names. */
  accounts: string[];
}

export interface ObservedPayout {
  /** Parts (Hush transactions paying the same recipient the same asset), earliest first. */
  signatures: string[];
  recipient: string;
  assetId: string;
  /** Sum of the parts. */
  amount: bigint;
  /** Slot of the last part: when the recipient had everything. */
  slot: number;
  /** The payout created the recipient's token account (it had none). */
  createdTokenAccount: boolean;
  parts: number;
  blockhashes: string[];
  accounts: string[];
}

export interface AssetInfo {
  assetId: string;
  mint: string;
  decimals: number;
  native: boolean;
  swappable: boolean;
  /** The destination grid swap payouts are rounded down to, when GET /tokens publishes one. */
  swapGrid?: bigint;
  /** The standard amounts GET /tokens publishes (docs/spec.md §9). */
  denominations?: bigint[];
}

export interface Observation {
  deposits: ObservedDeposit[];
  payouts: ObservedPayout[];
}
