import type { AssetRegistry } from '../config/assets.ts';
import { isFinal } from '../domain/order-state.ts';
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
