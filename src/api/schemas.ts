import { Type, type TSchema } from 'typebox';
import { HUSH_ERROR_CODES, hasRetryAfter, httpStatusOf, type HushErrorCode } from '../domain/errors.ts';
import { ORDER_STATUSES } from '../domain/order-state.ts';
import { depositHintExample, errorExamples, orderExample, orderRequestExample, quoteExample, quoteRequestExample, statusExample, tokenExample } from './examples.ts';

/** Request and response schemas (TypeBox), one per wire shape; the OpenAPI document is generated from them. */

/** The wire form of an amount (decimal digits, no leading zero); the error handler names the fix when it fails. */
export const AMOUNT_PATTERN = '^(0|[1-9][0-9]*)$';
const AmountString = Type.String({ pattern: AMOUNT_PATTERN, maxLength: 40, description: 'Raw base units, decimal digits' });
// Requests carry no length limits on amounts, addresses, ids or signatures: the service answers them with
// their own codes (AMOUNT_TOO_HIGH, INVALID_ADDRESS, UNSUPPORTED_ASSET, NOT_FOUND, INVALID_SIGNATURE), not
// INVALID_REQUEST.
const RequestAmount = Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: 'Raw base units, decimal digits' });
const AddressString = Type.String({ description: 'Base58 Solana address' });
const AssetId = Type.String({ description: 'From GET /transfer/v1/tokens' });
// No `format`/`enum` where a schema sits in a union: fast-json-stringify checks union branches with ajv,
// so a value outside them would turn an answer into a 500 (outside unions they are documentation only).
const Timestamp = Type.String({ description: 'ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z' });
/** docs/spec.md §5's states (never inside a union). */
const OrderStatus = Type.String({ enum: [...ORDER_STATUSES], description: 'Order state; completed, expired, refunded and failed are final' });
/** Why a deposit went back: `failureReason` of the refund, or funds sent after the deposit (`late_deposit`). */
const RefundReason = Type.String({
  description:
    'One of: deposit_short / deposit_over: the deposit differed from amountIn; price_moved: a swap whose price moved beyond a drift limit the operator set (none by default: quotes are firm); recipient_refused: the chain refused to pay the recipient; undeliverable: the payout could not be made; late_deposit: funds sent to the deposit account after its deposit was confirmed or the order ended (the order keeps its status)',
});
const Mode = Type.Union([Type.Literal('exact_in'), Type.Literal('exact_out')]);

const header = (description: string, schema: TSchema = Type.String()) => ({ ...schema, description });

/** docs/spec.md §2 and §7: on every partner response. */
const PARTNER_HEADERS = {
  'X-Request-Id': header('The incoming X-Request-Id when well formed, else a generated one; quote it to support'),
  'RateLimit-Limit': header("Requests the key's bucket holds: twice the route's per-second rate (burst)", Type.Integer()),
  'RateLimit-Remaining': header('Requests left in the bucket now', Type.Integer()),
  'RateLimit-Reset': header('Seconds until the bucket is full again', Type.Integer()),
  'RateLimit-Policy': header('IETF RateLimit-Policy: "default";q=<bucket size>;w=2 (the bucket refills from empty in 2 s)'),
  RateLimit: header('IETF RateLimit: "default";r=<remaining>;t=<seconds until full>'),
};
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before retrying', Type.Integer()) };
const WWW_AUTHENTICATE = { 'WWW-Authenticate': header('Bearer realm="hush": the scheme the API key goes in') };

/**
 * A response status as the OpenAPI document shows it: @fastify/swagger reads `description` and
 * `headers` from the response schema; the serializer ignores both.
 */
export function documented<T extends TSchema>(schema: T, description: string, headers: Record<string, TSchema> = {}): T {
  return { ...schema, description, headers: { ...PARTNER_HEADERS, ...headers } };
}

/** The docs/spec.md §2 error body with `error.code` narrowed to the codes one status of one route can carry. */
function errorBodyWith(codes: readonly HushErrorCode[]) {
  return Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        code: Type.Unsafe<HushErrorCode>({ type: 'string', enum: [...codes] }),
        message: Type.String(),
        details: Type.Optional(Type.Object({}, { additionalProperties: true })),
        requestId: Type.String(),
      }),
    },
    { title: 'ErrorBody', ...examplesOf(codes) },
  );
}

/** Worked examples of the codes that have one (a new code is documented with one, docs/spec.md §6). */
function examplesOf(codes: readonly HushErrorCode[]): { examples?: unknown[] } {
  const examples = codes.flatMap((c) => (errorExamples[c] ? [{ success: false, error: errorExamples[c] }] : []));
  return examples.length ? { examples } : {};
}

/**
 * The error answers of a route, grouped by status: each documents the docs/spec.md §6 codes the route can give
 * with that status (test/support/hush-server.ts holds every test's responses to this), and Retry-After
 * where one of them carries it.
 */
export function errorResponses(...codes: HushErrorCode[]): Record<number, ReturnType<typeof errorBodyWith>> {
  const byStatus = new Map<number, HushErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(httpStatusOf(code), [...(byStatus.get(httpStatusOf(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      const ordered = HUSH_ERROR_CODES.filter((c) => group.includes(c));
      const headers = { ...(ordered.some(hasRetryAfter) ? RETRY_AFTER : {}), ...(ordered.includes('UNAUTHORIZED') ? WWW_AUTHENTICATE : {}) };
      return [status, documented(errorBodyWith(ordered), `error.code: ${ordered.join(', ')}`, headers)];
    }),
  );
}

const STATUS_CACHING = {
  ETag: header('Version of the status record; send it back in If-None-Match'),
  'Cache-Control': header('no-cache: revalidate with If-None-Match'),
};

/** 304 to a matching If-None-Match: no body. */
export const NotModified = documented(Type.Null(), 'The record has not changed since the ETag sent', STATUS_CACHING);

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
      denominations: Type.Array(AmountString, { description: 'Standard amounts in base units: a transfer whose pinned amount is one of them takes the private path (its payout is held with the others of its class and released with them)' }),
      swapGrid: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Swap payouts into this asset are rounded down to a multiple of this many base units' }),
    }),
  ),
}, { examples: [{ success: true, tokens: [tokenExample] }] });

export const QuoteRequestBody = Type.Object(
  {
    amount: RequestAmount,
    sourceAssetId: AssetId,
    destinationAssetId: AssetId,
    senderAddress: AddressString,
    recipientAddress: AddressString,
    mode: Type.Optional(Mode),
    feeBps: Type.Optional(Type.Integer({ description: "Partner revenue share, 0…the account's fee cap" })),
    feeRecipientAddress: Type.Optional(AddressString),
  },
  { additionalProperties: false, examples: [quoteRequestExample] },
);

const QuoteObjectSchema = Type.Object({
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
  privacy: Type.Object(
    {
      standard: Type.Boolean({ description: 'The pinned amount is one of the asset\'s standard amounts (denominations): the private path, its payout held and released with its class' }),
      anonymitySet: Type.Integer({ minimum: 1, description: 'Expected effective anonymity set at the expected release delay, from the class\'s recent traffic; 1 for a non-standard amount' }),
      delaySeconds: Type.Integer({ minimum: 0, description: 'Expected release delay in seconds, included in duration' }),
      suggestedAmounts: Type.Array(AmountString, { maxItems: 4, description: 'The nearest standard amounts in the request\'s mode, ascending' }),
    },
    { additionalProperties: false },
  ),
  quoteId: Type.String(),
  issuedAt: Timestamp,
  expiresAt: Timestamp,
});

export const QuoteResponse = Type.Object({ success: Type.Literal(true), quote: QuoteObjectSchema }, { examples: [{ success: true, quote: quoteExample }] });

export const OrderRequestBody = Type.Object(
  {
    // Deliberately open: any change inside the quote is reported as QUOTE_MISMATCH, not INVALID_REQUEST.
    quote: Type.Object({}, { additionalProperties: true, description: 'The complete, unchanged quote object' }),
    senderAddress: AddressString,
    recipientAddress: AddressString,
    feeBps: Type.Optional(Type.Integer()),
    feeRecipientAddress: Type.Optional(AddressString),
  },
  { additionalProperties: false, examples: [orderRequestExample] },
);

const OrderObjectSchema = Type.Object({
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

export const OrderResponse = Type.Object({ success: Type.Literal(true), order: OrderObjectSchema }, { examples: [{ success: true, order: orderExample }] });
export const OrderCreatedResponse = documented(OrderResponse, 'The order and its unsigned deposit transaction (a replay: the original answer)', {
  'Idempotent-Replayed': header('Present when this answer replays an earlier request with the same X-Idempotency-Key', Type.Literal('true')),
});

const Transfer = Type.Object({ signature: Type.String(), amount: AmountString, confirmedAt: Type.Union([Timestamp, Type.Null()]) });
const DepositTransfer = Type.Object({
  signature: Type.String({
    description:
      'The deposit transaction. Empty while the order is deposit_detected from the chain alone: a transaction seen only at processed cannot be looked up by account (the RPC answers that from confirmed), and a deposit hint fills it at once.',
  }),
  amount: AmountString,
  confirmedAt: Type.Union([Timestamp, Type.Null()]),
});

const StatusRecordSchema = Type.Object({
  trackingId: Type.String(),
  status: OrderStatus,
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
  refund: Type.Union([Type.Object({ signature: Type.String(), amount: AmountString, reason: RefundReason }), Type.Null()]),
  failureReason: Type.Union([
    Type.String({ description: 'deposit_short, deposit_over, price_moved, recipient_refused (then refunded); deposit_below_refund_cost, refund_below_rent (SOL below the rent of a wallet to a sender holding none), stuck_in_<status> (failed: funds held, operator alerted); deposit_account_taken (expired: another wallet created or funded the deposit account first, so the order transaction could not land)' }),
    Type.Null(),
  ]),
  history: Type.Array(Type.Object({ status: OrderStatus, at: Timestamp })),
  privacy: Type.Object(
    {
      standard: Type.Boolean({ description: 'The pinned amount is a private amount (as the quote said): the payout waits for its class and leaves with it' }),
      releaseBy: Type.Union([Timestamp, Type.Null()], { description: 'While the payout of a private amount waits (for its class; on a Hush run with privacy off, for its configured delay): the latest moment it goes out, to show as the wait. Null before the deposit is confirmed, once released, and for amounts that are not private' }),
      releasedWith: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Once released: how many payouts of its class (this one included) went out in the same release, the set it hides in. Null until then' }),
      heldSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Once released: seconds from the deposit\'s confirmation to the payout\'s scheduled send. Null until then' }),
    },
    { additionalProperties: false, description: 'The privacy this order was promised and the privacy it got; only its own partner sees it' },
  ),
});

export const StatusResponse = Type.Object({ success: Type.Literal(true), order: StatusRecordSchema }, { examples: [{ success: true, order: statusExample }] });
export const StatusRecordResponse = documented(StatusResponse, 'The status record', STATUS_CACHING);

export const TrackingIdParams = Type.Object({ trackingId: Type.String({ maxLength: 64 }) });

export const DepositHintBody = Type.Object(
  { trackingId: Type.String(), signature: Type.String() },
  { additionalProperties: false, examples: [depositHintExample] },
);

export const EmptyBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);

export const WebhookTestResponse = Type.Object(
  {
    success: Type.Literal(true),
    eventId: Type.String(),
    outcome: Type.Union([Type.Literal('delivered'), Type.Literal('refused'), Type.Literal('failed')], {
      description:
        "delivered: the receiver answered 2xx; refused: not sent, the URL's address is not one webhooks may reach (private, loopback, link-local, metadata); failed: no 2xx (network error, timeout, another status). Nothing of the receiver's answer is reported.",
    }),
    delivered: Type.Boolean({ description: "outcome is 'delivered'" }),
  },
  {
    examples: [
      { success: true, eventId: 'evt_test_Zk3v1lq2cJ8pQy0A', outcome: 'delivered', delivered: true },
      { success: true, eventId: 'evt_test_pX0d7uQh2mB9sLk4', outcome: 'refused', delivered: false },
    ],
  },
);
