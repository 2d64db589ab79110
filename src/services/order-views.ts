import type { AssetRegistry } from '../config/assets.ts';
import { isFinal, type OrderStatus } from '../domain/order-state.ts';
import type { OrderRecord } from '../store/orders-store.ts';

/** The order object of the order and refresh endpoints (seed part 2). */
export interface OrderObject {
  trackingId: string;
  transaction: string;
  transactionEncoding: 'base64';
  amountIn: string;
  amountOut: string;
  sourceSymbol: string;
  destinationSymbol: string;
  eta: number;
  expiration: string;
  blockhashExpiresAtSlot: number;
}

export function orderObject(
  assets: AssetRegistry,
  o: Pick<OrderRecord, 'trackingId' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId' | 'expiration'>,
  tx: { base64: string; expiresAtSlot: bigint },
  eta: number,
): OrderObject {
  return {
    trackingId: o.trackingId,
    transaction: tx.base64,
    transactionEncoding: 'base64',
    amountIn: o.amountIn.toString(),
    amountOut: o.amountOut.toString(),
    sourceSymbol: assets.get(o.sourceAssetId)?.symbol ?? o.sourceAssetId,
    destinationSymbol: assets.get(o.destinationAssetId)?.symbol ?? o.destinationAssetId,
    eta,
    expiration: o.expiration.toISOString(),
    blockhashExpiresAtSlot: Number(tx.expiresAtSlot),
  };
}

/** The status record of GET /status (SPEC §4). */
export function statusRecord(o: OrderRecord) {
  return {
    trackingId: o.trackingId,
    status: o.status,
    final: isFinal(o.status),
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    expiration: o.expiration.toISOString(),
    sourceAssetId: o.sourceAssetId,
    destinationAssetId: o.destinationAssetId,
    amountIn: o.amountIn.toString(),
    amountOut: o.amountOut.toString(),
    deposit: o.deposit,
    payouts: o.payouts,
    refund: o.refund,
    failureReason: o.failureReason,
    history: o.history.map((h) => ({ status: h.status, at: h.at.toISOString() })),
  };
}

export type StatusRecord = ReturnType<typeof statusRecord>;

/**
 * The status record as it stood right after one transition (a webhook event), rebuilt from the current
 * one: each field as the transitions up to that one left it. Events may go out long after their
 * transition (retries), and a record already further along would contradict the event it rides on.
 */
export function recordAsOf(current: StatusRecord, event: { status: string; sequence: number; at: Date }): StatusRecord {
  const status = event.status as OrderStatus;
  const deposited = status !== 'awaiting_deposit' && status !== 'expired';
  return {
    ...current,
    status,
    final: isFinal(status),
    updatedAt: event.at.toISOString(),
    deposit: deposited && current.deposit ? (status === 'deposit_detected' ? { ...current.deposit, confirmedAt: null } : current.deposit) : null,
    payouts: status === 'completed' ? current.payouts : [],
    refund: status === 'refunded' ? current.refund : null,
    failureReason: status === 'refunding' || status === 'refunded' || status === 'failed' ? current.failureReason : null,
    history: current.history.slice(0, event.sequence),
  };
}

