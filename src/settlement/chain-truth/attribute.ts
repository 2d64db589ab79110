import type { ChainRecord } from '../../domain/chain-record.ts';
import { STATUS_TRAITS } from '../../domain/order-state.ts';
import { tokenDelta, type ReadTransaction } from '../../chain/hush-history.ts';
import type { FoundTransaction } from '../../store/chain-truth-store.ts';
import type { OrderRecord } from '../../store/orders-store.ts';

/** What attribution reads of the store: orders by tracking id and by deposit account, and the pools' holdings. */
export interface AttributionReads {
  orderByTrackingId(trackingId: string): Promise<OrderRecord | null>;
  orderByDepositAccount(account: string): Promise<OrderRecord | null>;
  /** Every pool holding of the treasury (the accounts a payout or refund moves money out of). */
  poolHoldings: ReadonlySet<string>;
}

const unattributed = (tx: ReadTransaction, reason: string, extra: Record<string, unknown> = {}): FoundTransaction => ({
  signature: tx.signature,
  slot: tx.slot,
  kind: 'unattributed',
  orderId: null,
  part: 0,
  assetId: null,
  amount: null,
  source: null,
  destination: null,
  wire: tx.wire,
  detail: { reason, ...extra },
});

/**
 * What a transaction of Hush's the store forgot was, from its record and the chain alone: a payout or refund
 * of an order the store still has open (adopted: it becomes that order's record, never paid again), a sweep of
 * deposits the store knows, or unattributed (payouts stop until an operator acts).
 */
export async function attribute(tx: ReadTransaction, record: ChainRecord | null, reads: AttributionReads): Promise<FoundTransaction> {
  if (!record) return unattributed(tx, 'no_record');
  if (record.kind === 'payout' || record.kind === 'refund') {
    const order = await reads.orderByTrackingId(record.trackingId);
    if (!order) return unattributed(tx, 'order_unknown', { trackingId: record.trackingId, kind: record.kind });
    if (STATUS_TRAITS[order.status].final) return unattributed(tx, 'order_already_final', { trackingId: record.trackingId, kind: record.kind, status: order.status });
    const out = tx.transfers.filter((t) => reads.poolHoldings.has(t.source));
    if (out.length === 0) return unattributed(tx, 'no_pool_transfer', { trackingId: record.trackingId });
    const amount = out.reduce((s, t) => s + t.amount, 0n);
    return {
      signature: tx.signature,
      slot: tx.slot,
      kind: record.kind,
      orderId: order.id,
      part: record.part,
      assetId: record.kind === 'payout' ? order.destinationAssetId : order.sourceAssetId,
      amount,
      source: out[0]!.source,
      destination: record.kind === 'payout' ? order.recipient : order.sender,
      wire: tx.wire,
      detail: out.length > 1 ? { sources: out.map((t) => ({ holding: t.source, amount: t.amount.toString() })) } : {},
    };
  }
  if (record.kind === 'sweep') {
    const items: { orderId: string; depositAccount: string; amount: string }[] = [];
    let assetId: string | null = null;
    let destination: string | null = null;
    for (const c of tx.closed) {
      const order = await reads.orderByDepositAccount(c.account);
      if (!order) return unattributed(tx, 'sweep_of_unknown_deposit', { depositAccount: c.account });
      assetId = order.sourceAssetId;
      const moved = tx.transfers.find((t) => t.source === c.account);
      // Wrapped SOL is closed outright (every lamport to the pool wallet); a token deposit is moved first.
      items.push({ orderId: order.id, depositAccount: c.account, amount: (moved ? moved.amount : -tokenDelta(tx, c.account)).toString() });
      destination = moved ? moved.destination : c.destination;
    }
    if (items.length === 0) return unattributed(tx, 'sweep_closed_nothing');
    return {
      signature: tx.signature,
      slot: tx.slot,
      kind: 'sweep',
      orderId: null,
      part: 0,
      assetId,
      amount: items.reduce((s, i) => s + BigInt(i.amount), 0n),
      source: 'deposits',
      destination,
      wire: tx.wire,
      detail: { items },
    };
  }
  // A partner payout or a stray return the store forgot: what it owes is the operator's to judge.
  return unattributed(tx, `${record.kind}_forgotten`, { trackingId: record.trackingId });
}
