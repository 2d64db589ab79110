import { Type } from 'typebox';

/** Request and response schemas (TypeBox), one per wire shape; the OpenAPI document is generated from them. */

export const AmountString = Type.String({ pattern: '^(0|[1-9][0-9]*)$', maxLength: 40, description: 'Raw base units, decimal digits' });
const AddressString = Type.String({ minLength: 1, maxLength: 64, description: 'Base58 Solana address' });
const AssetId = Type.String({ minLength: 1, maxLength: 32, description: 'From GET /transfer/v1/tokens' });
const Timestamp = Type.String({ description: 'ISO 8601 UTC with milliseconds' });
const Mode = Type.Union([Type.Literal('exact_in'), Type.Literal('exact_out')]);

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
      requestId: Type.String(),
    }),
  },
  { $id: 'ErrorBody' },
);

export const TokensResponse = Type.Object({
  success: Type.Literal(true),
  tokens: Type.Array(
    Type.Object({
      assetId: Type.String(),
      symbol: Type.String(),
      name: Type.String(),
      decimals: Type.Integer(),
      mint: Type.String(),
      tokenProgram: Type.String(),
      native: Type.Boolean(),
      swappable: Type.Boolean(),
      min: AmountString,
      max: AmountString,
    }),
  ),
});

export const QuoteRequestBody = Type.Object(
  {
    amount: AmountString,
    sourceAssetId: AssetId,
    destinationAssetId: AssetId,
    senderAddress: AddressString,
    recipientAddress: AddressString,
    mode: Type.Optional(Mode),
    feeBps: Type.Optional(Type.Integer({ description: "Partner revenue share, 0…the account's fee cap" })),
    feeRecipientAddress: Type.Optional(AddressString),
  },
  { additionalProperties: false },
);

export const QuoteObjectSchema = Type.Object({
  sourceAssetId: Type.String(),
  destinationAssetId: Type.String(),
  mode: Mode,
  amountIn: AmountString,
  amountOut: AmountString,
  fee: AmountString,
  protocolFee: AmountString,
  networkFee: AmountString,
  feeBreakdown: Type.Object({ serviceFee: AmountString, partnerFee: AmountString, networkFee: AmountString }),
  duration: Type.Integer(),
  min: AmountString,
  max: AmountString,
  quoteId: Type.String(),
  issuedAt: Timestamp,
  expiresAt: Timestamp,
});

export const QuoteResponse = Type.Object({ success: Type.Literal(true), quote: QuoteObjectSchema });

export const OrderRequestBody = Type.Object(
  {
    // Deliberately open: any change inside the quote is reported as QUOTE_MISMATCH, not INVALID_REQUEST.
    quote: Type.Object({}, { additionalProperties: true, description: 'The complete, unchanged quote object' }),
    senderAddress: AddressString,
    recipientAddress: AddressString,
    feeBps: Type.Optional(Type.Integer()),
    feeRecipientAddress: Type.Optional(AddressString),
  },
  { additionalProperties: false },
);

export const OrderObjectSchema = Type.Object({
  trackingId: Type.String(),
  transaction: Type.String({ description: 'Unsigned v0 transaction, base64' }),
  transactionEncoding: Type.Literal('base64'),
  amountIn: AmountString,
  amountOut: AmountString,
  sourceSymbol: Type.String(),
  destinationSymbol: Type.String(),
  eta: Type.Integer(),
  expiration: Timestamp,
  blockhashExpiresAtSlot: Type.Integer(),
});

export const OrderResponse = Type.Object({ success: Type.Literal(true), order: OrderObjectSchema });

const Transfer = Type.Object({ signature: Type.String(), amount: AmountString, confirmedAt: Type.Union([Timestamp, Type.Null()]) });
const DepositTransfer = Type.Object({
  signature: Type.String({
    description:
      'The deposit transaction. Empty while the order is deposit_detected from the chain alone: a transaction seen only at processed cannot be looked up by account (the RPC answers that from confirmed), and a deposit hint fills it at once.',
  }),
  amount: AmountString,
  confirmedAt: Type.Union([Timestamp, Type.Null()]),
});

export const StatusRecordSchema = Type.Object({
  trackingId: Type.String(),
  status: Type.String(),
  final: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  expiration: Timestamp,
  sourceAssetId: Type.String(),
  destinationAssetId: Type.String(),
  amountIn: AmountString,
  amountOut: AmountString,
  deposit: Type.Union([DepositTransfer, Type.Null()]),
  payouts: Type.Array(Transfer),
  refund: Type.Union([Type.Object({ signature: Type.String(), amount: AmountString, reason: Type.String() }), Type.Null()]),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  history: Type.Array(Type.Object({ status: Type.String(), at: Timestamp })),
});

export const StatusResponse = Type.Object({ success: Type.Literal(true), order: StatusRecordSchema });

export const TrackingIdParams = Type.Object({ trackingId: Type.String({ maxLength: 64 }) });

export const DepositHintBody = Type.Object(
  { trackingId: Type.String({ maxLength: 64 }), signature: Type.String({ maxLength: 128 }) },
  { additionalProperties: false },
);

export const EmptyBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);
