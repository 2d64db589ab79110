import type { Address } from '@solana/kit';
import type { OrderStatus } from '../domain/order-state.ts';

/** An order as the store keeps it: the row, and the record the code works with. */
export interface NewOrder {
  trackingId: string;
  accountId: string;
  quoteKey: string;
  quote: unknown;
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  amountIn: bigint;
  amountOut: bigint;
  serviceFee: bigint;
  partnerFee: bigint;
  networkFee: bigint;
  /** The compute-unit price networkFee was priced at (its quote's fee grid rung); null: not known (older orders). Written, not read back: the ledger's split queries it. */
  networkFeePrice?: bigint | null;
  feeBps: number;
  feeRecipient: Address | null;
  sender: Address;
  recipient: Address;
  depositOwner: Address;
  depositAccount: Address;
  expiration: Date;
  txBlockhash: string;
  txLastValidBlockHeight: bigint;
  txExpiresAtSlot: bigint;
  createdAt: Date;
}

export interface DepositInfo {
  signature: string;
  amount: string;
  confirmedAt: string | null;
}

export interface OrderRecord extends NewOrder {
  id: string;
  status: OrderStatus;
  deposit: DepositInfo | null;
  payouts: { signature: string; amount: string; confirmedAt: string | null }[];
  refund: { signature: string; amount: string; reason: string } | null;
  failureReason: string | null;
  updatedAt: Date;
  history: { status: OrderStatus; at: Date }[];
  /** When its payout is due (null before its deposit's confirmation). */
  payoutDueAt: Date | null;
  /** Its class release (docs/spec.md §9): when, and how many payouts of the class went in it; null while held or never held. */
  /** size: the release as Hush sent it; landedSize: the burst its payout landed in (issue 54), null until counted, 0 when none landed. */
  classRelease: { at: Date; size: number | null; landedSize: number | null } | null;
}

export interface OrderRow {
  id: string | number;
  tracking_id: string;
  account_id: string;
  quote_key: string;
  quote: unknown;
  status: OrderStatus;
  source_asset_id: string;
  destination_asset_id: string;
  mode: 'exact_in' | 'exact_out';
  amount_in: string;
  amount_out: string;
  service_fee: string;
  partner_fee: string;
  network_fee: string;
  fee_bps: number;
  // Written only from checked addresses (the API's address rules, derived deposit identities).
  fee_recipient: Address | null;
  sender: Address;
  recipient: Address;
  deposit_owner: Address;
  deposit_account: Address;
  expiration: Date;
  tx_blockhash: string;
  tx_last_valid_block_height: string | number;
  tx_expires_at_slot: string | number;
  deposit: DepositInfo | null;
  payouts: OrderRecord['payouts'];
  refund: OrderRecord['refund'];
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  history: { status: OrderStatus; at: string }[] | null;
  payout_due_at: Date | null;
  class_released_at: Date | null;
  class_release_size: number | null;
  class_landed_size: number | null;
}

/** A row of `orders` (history, when not selected, comes back empty). */
export function toOrder(r: OrderRow): OrderRecord {
  return {
    id: String(r.id),
    trackingId: r.tracking_id,
    accountId: r.account_id,
    quoteKey: r.quote_key,
    quote: r.quote,
    status: r.status,
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
    mode: r.mode,
    amountIn: BigInt(r.amount_in),
    amountOut: BigInt(r.amount_out),
    serviceFee: BigInt(r.service_fee),
    partnerFee: BigInt(r.partner_fee),
    networkFee: BigInt(r.network_fee),
    feeBps: r.fee_bps,
    feeRecipient: r.fee_recipient,
    sender: r.sender,
    recipient: r.recipient,
    depositOwner: r.deposit_owner,
    depositAccount: r.deposit_account,
    expiration: r.expiration,
    txBlockhash: r.tx_blockhash,
    txLastValidBlockHeight: BigInt(r.tx_last_valid_block_height),
    txExpiresAtSlot: BigInt(r.tx_expires_at_slot),
    deposit: r.deposit,
    payouts: r.payouts,
    refund: r.refund,
    failureReason: r.failure_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    history: (r.history ?? []).map((h) => ({ status: h.status, at: new Date(h.at) })),
    payoutDueAt: r.payout_due_at ?? null,
    classRelease: r.class_released_at ? { at: r.class_released_at, size: r.class_release_size, landedSize: r.class_landed_size ?? null } : null,
  };
}

/** NOTIFY channel carrying the trackingId of every order that changed (status caches listen). */
