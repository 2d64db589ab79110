import type { AssetRegistry } from '../config/assets.ts';
import { isFinal, STATUS, STATUS_TRAITS, type OrderStatus } from '../domain/order-state.ts';
import { quotedPrivate } from '../domain/quote-privacy.ts';
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
  /** The transaction's lifetime as web3.js and kit confirm by it: the last block height its blockhash is valid at. */
  lastValidBlockHeight: number;
}

export function orderObject(
  assets: AssetRegistry,
  o: Pick<OrderRecord, 'trackingId' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId' | 'expiration'>,
  tx: { base64: string; expiresAtSlot: bigint; lastValidBlockHeight: bigint },
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
    lastValidBlockHeight: Number(tx.lastValidBlockHeight),
  };
}

/** The status record's `privacy` (docs/spec.md §4): what the order was promised, and what it got. */
export interface OrderPrivacy {
  /** The pinned amount is a private amount (as its quote said). */
  standard: boolean;
  /** While it is held for its class: the latest moment its payout goes out. */
  releaseBy: string | null;
  /**
   * Once its release's payouts are all final: how many of them landed in its payout's burst on the chain,
   * by the burst rule an outside reader applies (itself included; issue 54). Null until then.
   */
  releasedWith: number | null;
  /**
   * Why a completed order has no releasedWith yet or never will (issue 71: the status says why not):
   * `release_landing` while other payouts of its release are still landing (it comes once they are final),
   * `not_private` for an amount that is not private (never released by class). Null otherwise.
   */
  releasedWithPending: ReleasedWithPending | null;
  /** Once released: seconds from its deposit's confirmation to its payout's scheduled send. */
  heldSeconds: number | null;
}

export type ReleasedWithPending = 'release_landing' | 'not_private';

function pendingReason(status: OrderRecord['status'], standard: boolean, releasedWith: number | null): ReleasedWithPending | null {
  if (status !== STATUS.completed || releasedWith !== null) return null;
  return standard ? 'release_landing' : 'not_private';
}

export function orderPrivacy(o: Pick<OrderRecord, 'quote' | 'status' | 'deposit' | 'payoutDueAt' | 'classRelease'>): OrderPrivacy {
  const standard = quotedPrivate(o.quote);
  const confirmedAt = o.deposit?.confirmedAt ? Date.parse(o.deposit.confirmedAt) : null;
  if (o.classRelease) {
    // Released before migration 013 kept sizes: the release happened, its size is not known.
    const held = o.payoutDueAt && confirmedAt !== null ? Math.max(0, Math.round((o.payoutDueAt.getTime() - confirmedAt) / 1000)) : null;
    // Issue 54: what the chain shows, never what Hush meant to send together (a lagging send splits a release).
    const releasedWith = o.classRelease.landedSize ? o.classRelease.landedSize : null;
    return { standard, releaseBy: null, releasedWith, releasedWithPending: pendingReason(o.status, standard, releasedWith), heldSeconds: held };
  }
  const held = standard && confirmedAt !== null && o.payoutDueAt !== null && STATUS_TRAITS[o.status].awaitsPayout;
  return { standard, releaseBy: held ? o.payoutDueAt!.toISOString() : null, releasedWith: null, releasedWithPending: pendingReason(o.status, standard, null), heldSeconds: null };
}

/** The status record of GET /status (docs/spec.md §4). */
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
    privacy: orderPrivacy(o),
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
  const deposited = status !== STATUS.awaiting_deposit && status !== STATUS.expired;
  return {
    ...current,
    status,
    final: isFinal(status),
    updatedAt: event.at.toISOString(),
    deposit: deposited && current.deposit ? (status === STATUS.deposit_detected ? { ...current.deposit, confirmedAt: null } : current.deposit) : null,
    payouts: status === STATUS.completed ? current.payouts : [],
    refund: status === STATUS.refunded ? current.refund : null,
    failureReason: status === STATUS.refunding || status === STATUS.refunded || status === STATUS.failed ? current.failureReason : null,
    history: current.history.slice(0, event.sequence),
    // Before its deposit was confirmed nothing was held yet; later events carry what the order has now, except
    // that before the order is final its payout has not landed, so no set was counted yet (issue 54).
    privacy: deposited && status !== STATUS.deposit_detected ? (isFinal(status) ? current.privacy : { ...current.privacy, releasedWith: null, releasedWithPending: null }) : { ...current.privacy, releaseBy: null, releasedWith: null, releasedWithPending: null, heldSeconds: null },
  };
}

