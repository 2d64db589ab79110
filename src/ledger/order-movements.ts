import { drainMovement } from './drain-movements.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import { transferSources, type ChainTx } from '../store/settlement/chain-tx.ts';
import type { LedgerLeg, Movement } from '../store/settlement/movements.ts';
import { DEFAULT_NETWORK_COST } from '../domain/network-cost.ts';
import { sweepLegs } from './sweep-legs.ts';

/** A confirmed deposit: from the senders into the order's deposit account (one movement per order). */
export function depositMovement(o: Pick<OrderRecord, 'id' | 'trackingId' | 'sourceAssetId' | 'depositAccount'>, amount: bigint): Movement {
  return {
    movement: `deposit:${o.trackingId}`,
    kind: 'deposit',
    legs: [
      { account: 'external:senders', assetId: o.sourceAssetId, amount: -amount },
      { account: `deposit:${o.depositAccount}`, assetId: o.sourceAssetId, amount },
    ],
    orderId: o.id,
  };
}

/** A completed order's fees: service, the partner's (payable), network; retained in custody. */
export function feeMovement(o: OrderRecord): Movement {
  return {
    movement: `fees:${o.trackingId}`,
    kind: 'fee_income',
    legs: [
      { account: 'income:service', assetId: o.sourceAssetId, amount: -o.serviceFee },
      { account: `payable:partner:${o.accountId}:${o.feeRecipient ?? '-'}`, assetId: o.sourceAssetId, amount: -o.partnerFee },
      { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -o.networkFee },
      { account: 'custody:retained', assetId: o.sourceAssetId, amount: o.serviceFee + o.partnerFee + o.networkFee },
    ],
    orderId: o.id,
  };
}

/** A refunded order keeps what it did not return (the network fee) as income. */
export function refundFeeLegs(o: Pick<OrderRecord, 'sourceAssetId'>, deposited: bigint, refunded: bigint): LedgerLeg[] {
  return [
    { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -(deposited - refunded) },
    { account: 'custody:retained', assetId: o.sourceAssetId, amount: deposited - refunded },
  ];
}

/** A swap at the quoted rate: the source received (net of fees) into the book, the destination owed out of it. */
export function swapLegs(o: Pick<OrderRecord, 'sourceAssetId' | 'destinationAssetId' | 'amountOut'>, net: bigint): LedgerLeg[] {
  return [
    { account: 'swaps:received', assetId: o.sourceAssetId, amount: net },
    { account: 'swaps:book', assetId: o.sourceAssetId, amount: -net },
    { account: 'swaps:owed', assetId: o.destinationAssetId, amount: -o.amountOut },
    { account: 'swaps:book', assetId: o.destinationAssetId, amount: o.amountOut },
  ];
}

/**
 * What a landed transaction moved, for the ledger, and (sweeps of wrapped SOL) the lamports it moved
 * that no deposit account explains, for an ALERT.
 */
export function assetMovements(t: ChainTx, native: boolean, poolLamportDelta: bigint): { movements: Movement[]; unattributed: bigint } {
  switch (t.kind) {
    case 'payout':
    case 'refund':
    case 'partner_payout':
      return {
        movements: [
          {
            movement: `tx:${t.signature}:assets`,
            kind: t.kind,
            legs: [
              ...transferSources(t).map((s) => ({ account: `pool:${s.holding}`, assetId: t.assetId, amount: -s.amount })),
              { account: t.kind === 'payout' ? 'external:recipients' : t.kind === 'refund' ? 'external:senders' : 'external:partners', assetId: t.assetId, amount: t.amount },
              ...(t.kind === 'partner_payout'
                ? [
                    { account: String(t.meta.payable), assetId: t.assetId, amount: t.amount },
                    { account: 'custody:retained', assetId: t.assetId, amount: -t.amount },
                  ]
                : []),
            ],
            orderId: t.orderId,
          },
        ],
        unattributed: 0n,
      };
    case 'sweep': {
      const { legs, unattributed } = sweepLegs(t.meta.items, {
        assetId: t.assetId,
        pool: t.destination,
        native,
        poolLamportDelta,
        rentPerAccount: DEFAULT_NETWORK_COST.tokenAccountRent,
      });
      return { movements: [{ movement: `tx:${t.signature}:assets`, kind: 'sweep', legs }], unattributed };
    }
    case 'drain':
      return { movements: [drainMovement(t)], unattributed: 0n };
    default:
      return { movements: [], unattributed: 0n };
  }
}
