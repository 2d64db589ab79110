import { Type } from 'typebox';
import { depositHintExample, heldStatusExample, orderExample, orderRequestExample, statusExample } from '../examples.ts';
import { STATUS_CACHING, documented } from './responses.ts';
import { OrderStatus, header, TRACKING_ID_PATTERN, address, amount, nullableTimestamp, signature, success, timestamp, trackingId } from './fields.ts';

/** The wire shapes of orders, their status records, deposit hints and the webhook test. */

export const OrderRequestBody = Type.Object(
  {
    // Deliberately open: any change inside the quote is reported as QUOTE_MISMATCH, not INVALID_REQUEST.
    quote: Type.Object({}, { additionalProperties: true, description: 'The complete quote object from POST /transfer/v1/quote, unchanged (any change is QUOTE_MISMATCH)' }),
    senderAddress: address('The same senderAddress as in the quote request'),
    recipientAddress: address('The same recipientAddress as in the quote request'),
    feeBps: Type.Optional(Type.Integer({ description: 'The same feeBps as in the quote request (omitted: 0)' })),
    feeRecipientAddress: Type.Optional(address('The same feeRecipientAddress as in the quote request')),
  },
  {
    additionalProperties: false,
    title: 'OrderRequest',
    description: 'The quote and the terms it was asked with: Hush checks both against its signature',
    examples: [orderRequestExample],
  },
);

export const Order = Type.Object(
  {
    trackingId: trackingId({ pattern: TRACKING_ID_PATTERN }),
    transaction: Type.String({
      description:
        "The deposit transaction, unsigned (v0, base64): the sender signs it as it is and sends it before blockhashExpiresAtSlot. It pays amountIn into a deposit account that only this order uses; verify it before signing (the SDK's verifyDepositTransaction does)",
    }),
    transactionEncoding: Type.Literal('base64', { description: 'Always base64' }),
    amountIn: amount('What the deposit pays, in the source asset'),
    amountOut: amount('What the recipient will get, in the destination asset'),
    sourceSymbol: Type.String({ description: 'Ticker of the source asset' }),
    destinationSymbol: Type.String({ description: 'Ticker of the destination asset' }),
    eta: Type.Integer({ description: "Expected seconds from the confirmed deposit to the payout (the quote's duration)" }),
    expiration: timestamp('A deposit not confirmed by then expires the order (30 min by default); refresh the transaction meanwhile if its blockhash expires'),
    blockhashExpiresAtSlot: Type.Integer({ description: 'The last slot the transaction can land in; after it, get a new one from POST /transfer/v1/order/{trackingId}/refresh' }),
    lastValidBlockHeight: Type.Integer({
      description:
        "The last block height the transaction's blockhash is valid at (getLatestBlockhash's lastValidBlockHeight): what web3.js's confirmTransaction({ signature, blockhash, lastValidBlockHeight }) and kit's blockhash lifetime take. On mainnet slots and block heights differ; blockhashExpiresAtSlot is the same moment in slots",
    }),
  },
  { title: 'Order', description: 'An order awaiting its deposit, with the transaction that makes it', examples: [orderExample] },
);

export const OrderResponse = Type.Object(
  { success: success(true), order: Order },
  { title: 'OrderResponse', description: 'The order and its unsigned deposit transaction', examples: [{ success: true, order: orderExample }] },
);
export const OrderCreatedResponse = documented(OrderResponse, 'The order and its unsigned deposit transaction (a replay: the original answer)', {
  'Idempotent-Replayed': header('Present when this answer replays an earlier request with the same idempotency key', Type.Literal('true')),
});

const Payout = Type.Object(
  {
    signature: signature('The payout transaction'),
    amount: amount('What it paid the recipient'),
    confirmedAt: nullableTimestamp('When it was confirmed'),
  },
  { title: 'Payout', description: 'A payout transaction to the recipient' },
);

const Deposit = Type.Object(
  {
    signature: Type.String({
      description:
        'The deposit transaction (base58). Empty while the order is deposit_detected from the chain alone (a transaction seen only at processed commitment cannot be looked up yet); a deposit hint fills it at once',
    }),
    amount: amount('What the deposit paid'),
    confirmedAt: nullableTimestamp('When it was confirmed (null while deposit_detected)'),
  },
  { title: 'Deposit', description: 'The deposit as seen on chain' },
);

const RefundReason = Type.String({
  description:
    'Why: deposit_short / deposit_over: the deposit differed from amountIn; price_moved: a swap whose price moved beyond the limit the operator set (none by default: quotes are firm); recipient_refused: the chain refused to pay the recipient; undeliverable: the payout could not be made; late_deposit: funds sent to the deposit account after its deposit was confirmed or the order ended (the order keeps its status)',
});

const Refund = Type.Object(
  { signature: signature('The refund transaction, to the sender'), amount: amount('What it returned to the sender'), reason: RefundReason },
  { title: 'Refund', description: 'Money sent back to the sender' },
);

const HistoryEntry = Type.Object(
  { status: OrderStatus, at: timestamp('When the order entered it') },
  { title: 'HistoryEntry', description: 'A status the order went through' },
);

export const OrderPrivacy = Type.Object(
  {
    standard: Type.Boolean({ description: 'The pinned amount is a private (standard) amount, as the quote said: the payout waits for its class and leaves with it' }),
    releaseBy: Type.Union([Type.String(), Type.Null()], {
      description:
        'While the payout of a private amount waits for its class: the latest moment it goes out (ISO 8601 UTC), to show as the wait. Null before the deposit is confirmed, once released, and for amounts that are not private',
    }),
    releasedWith: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: "Once every payout of its release is final: how many payouts of its class (this one included) landed in its payout's burst on the chain, counted by the burst rule an outside reader applies, the set it hides in. Never more than the chain shows: a release whose payouts land wider apart than the burst span counts as several. Null until then (and when no payout landed)",
    }),
    releasedWithPending: Type.Union([Type.Literal('release_landing'), Type.Literal('not_private'), Type.Null()], {
      description:
        "Why a completed order shows no releasedWith: release_landing while other payouts of its release are still landing (releasedWith comes once they are final, usually within a few slots: read the status again or wait for the receipt), not_private for an amount that is not private (never released by class, so never counted). Null whenever releasedWith is set and before the order is completed",
    }),
    heldSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Once released: seconds from the deposit's confirmation to the payout's send. Null until then",
    }),
  },
  { additionalProperties: false, title: 'OrderPrivacy', description: 'The privacy this order was promised and the privacy it got; only its own partner sees it' },
);

export const StatusRecord = Type.Object(
  {
    trackingId: trackingId({ pattern: TRACKING_ID_PATTERN }),
    status: OrderStatus,
    final: Type.Boolean({ description: 'The status is final (completed, expired, refunded, failed): stop polling' }),
    createdAt: timestamp('When the order was created'),
    updatedAt: timestamp('When the status last changed'),
    expiration: timestamp('A deposit not confirmed by then expires the order'),
    sourceAssetId: Type.String({ description: 'The asset the sender pays in' }),
    destinationAssetId: Type.String({ description: 'The asset the recipient gets' }),
    amountIn: amount('What the deposit must pay'),
    amountOut: amount('What the recipient gets'),
    deposit: Type.Union([Deposit, Type.Null()], { description: 'The deposit once seen on chain; null before' }),
    payouts: Type.Array(Payout, { description: 'The payout transactions once completed; empty before' }),
    refund: Type.Union([Refund, Type.Null()], { description: 'The refund once refunded; null otherwise' }),
    failureReason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the order left the normal path, else null: deposit_short, deposit_over, price_moved, recipient_refused (then refunded); deposit_below_refund_cost, refund_below_rent (SOL below the rent of a wallet to a sender holding none), stuck_in_<status> (failed: funds held, operator alerted); deposit_account_taken (expired: another wallet created or funded the deposit account first, so the order transaction could not land)',
    }),
    history: Type.Array(HistoryEntry, { description: 'Every status so far, oldest first' }),
    privacy: OrderPrivacy,
  },
  { title: 'StatusRecord', description: "An order's status record: where it is, what moved, and its privacy", examples: [statusExample, heldStatusExample] },
);

export const StatusResponse = Type.Object(
  { success: success(true), order: StatusRecord },
  { title: 'StatusResponse', description: 'The status record', examples: [{ success: true, order: statusExample }, { success: true, order: heldStatusExample }] },
);
export const StatusRecordResponse = documented(StatusResponse, 'The status record', STATUS_CACHING);

export const TrackingIdParams = Type.Object({ trackingId: trackingId({ maxLength: 64 }) });

export const DepositHintBody = Type.Object(
  { trackingId: trackingId(), signature: signature('The deposit transaction the sender sent') },
  { additionalProperties: false, title: 'DepositHint', description: 'Which transaction is the deposit of which order', examples: [depositHintExample] },
);

export const EmptyBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], { description: 'No body, or {}' });

export const WebhookTestResponse = Type.Object(
  {
    success: success(true),
    eventId: Type.String({ description: 'The id of the webhook.test event sent ("evt_test_" and 16 base64url characters): the webhook-id header the receiver got' }),
    outcome: Type.Union([Type.Literal('delivered'), Type.Literal('refused'), Type.Literal('failed')], {
      description:
        "delivered: the receiver answered 2xx; refused: not sent, the URL's address is not one webhooks may reach (private, loopback, link-local, metadata); failed: no 2xx (network error, 5 s timeout, another status). Nothing of the receiver's answer is reported",
    }),
    delivered: Type.Boolean({ description: "outcome is 'delivered'" }),
  },
  {
    title: 'WebhookTestResult',
    description: 'The outcome of the send',
    examples: [
      { success: true, eventId: 'evt_test_Zk3v1lq2cJ8pQy0A', outcome: 'delivered', delivered: true },
      { success: true, eventId: 'evt_test_pX0d7uQh2mB9sLk4', outcome: 'refused', delivered: false },
    ],
  },
);
