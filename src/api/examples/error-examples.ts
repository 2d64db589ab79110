/**
 * A worked error body for every code an operation can answer (schemas/operation-errors.ts), written as
 * Hush sends it: the messages and details are the ones the services and the error handler produce.
 */
import type { HushErrorCode } from '../../domain/errors.ts';
import { BODY_LIMIT } from '../limits.ts';
import type { OperationId } from '../schemas/operation-errors.ts';

interface ErrorExample {
  summary: string;
  message: string;
  details?: Record<string, unknown>;
}

const REQUEST_ID = '3f0c9b1e-6a7d-4c2b-9e55-0d1f2a3b4c5d';
const NO_WEBHOOK = 'This account has no webhook; set one with PUT /transfer/v1/account/webhook';
const AMOUNT_FIX = 'must be an amount in base units: decimal digits only, no sign, decimal point or leading zero (25.5 USDC is "25500000")';

/** What a code means wherever it is answered. */
const BY_CODE: Record<HushErrorCode, ErrorExample> = {
  INVALID_REQUEST: { summary: 'The request is malformed', message: 'Invalid request: missing Host header', details: { reason: 'missing Host header' } },
  INVALID_ADDRESS: { summary: 'An address is not a usable wallet address', message: 'recipientAddress is not a valid Solana address', details: { field: 'recipientAddress', reason: 'invalid' } },
  UNSUPPORTED_ASSET: {
    summary: 'An asset id Hush does not move',
    message: 'Unknown asset "usdt2"; valid asset ids: sol, usdc, usdt, bonk',
    details: { field: 'destinationAssetId', assetId: 'usdt2' },
  },
  UNSUPPORTED_MODE: { summary: 'exact_out asked for a swap', message: 'Cross-asset orders must use exact_in', details: { mode: 'exact_out' } },
  PAIR_NOT_SUPPORTED: { summary: 'The two assets cannot be swapped', message: 'Swapping sol to bonk is not supported', details: { sourceAssetId: 'sol', destinationAssetId: 'bonk' } },
  AMOUNT_TOO_LOW: { summary: 'Below the minimum', message: 'amount is below the minimum of 10000000', details: { min: '10000000', max: '1000000000000' } },
  AMOUNT_TOO_HIGH: { summary: 'Above what can be paid now', message: 'amount exceeds the current maximum of 1000000000000', details: { min: '10000000', max: '1000000000000' } },
  FEE_BPS_TOO_HIGH: { summary: "feeBps above the account's cap", message: 'feeBps may be at most 100 for this account', details: { feeCapBps: 100 } },
  FEE_RECIPIENT_REQUIRED: { summary: 'A partner fee with nobody to pay it to', message: 'feeRecipientAddress is required when feeBps > 0', details: { field: 'feeRecipientAddress' } },
  INVALID_SIGNATURE: { summary: 'Not a transaction signature', message: 'signature is not a base58 transaction signature', details: { field: 'signature' } },
  WEBHOOK_URL_REFUSED: {
    summary: 'Webhooks may not reach that address (private, loopback, link-local, metadata, reserved)',
    message: 'url is not allowed: its address is not a public one (private, loopback, link-local, metadata or reserved)',
    details: { field: 'url', reason: 'not_public' },
  },
  UNAUTHORIZED: { summary: 'No API key, or not a valid one', message: 'Missing or invalid API key' },
  FEE_RECIPIENT_NOT_REGISTERED: {
    summary: 'The fee recipient is not registered to this account',
    message: 'feeRecipientAddress is not registered to this account',
    details: { feeRecipientAddress: '6vF9dEe8PM67Hz4J1roExQGHkqac2Uw4u97bVxspus3L' },
  },
  ACCOUNT_SUSPENDED: { summary: "The key's account is suspended", message: 'This account is suspended' },
  ADDRESS_BLOCKED: {
    summary: "An address is on the operator's screening lists; the same answer whichever list",
    message: 'senderAddress cannot be served',
    details: { field: 'senderAddress' },
  },
  NOT_FOUND: { summary: 'No such order for this account', message: 'No order with this trackingId' },
  QUOTE_NOT_FOUND: { summary: 'The quoteId was not issued to this account', message: 'No quote with this quoteId was issued to this account' },
  QUOTE_MISMATCH: { summary: 'The quote or the terms were changed', message: 'The quote differs from the one issued (amountOut)', details: { field: 'amountOut' } },
  QUOTE_ALREADY_USED: {
    summary: 'The quote already backs another order: details.trackingId is that order',
    message: 'This quote already backs an order (trk_5kwmViXEQM9piXNspn21JL)',
    details: { trackingId: 'trk_5kwmViXEQM9piXNspn21JL' },
  },
  IDEMPOTENCY_CONFLICT: { summary: 'The idempotency key was used with other terms', message: 'This idempotency key was used with different terms' },
  ORDER_IN_PROGRESS: { summary: 'The same order is being created right now', message: 'This order is being created by a concurrent request; retry shortly' },
  FORBIDDEN: { summary: "The operator's role does not allow this (admin API)", message: 'This needs the approver role; Ana Lima is a resolver', details: { role: 'resolver' } },
  APPROVAL_CONFLICT: { summary: 'A proposal already awaits a second operator for this hold, or the one named was decided (admin API)', message: 'Proposal 12 is approved already', details: { approvalId: '12', status: 'approved' } },
  ORDER_NOT_HELD: { summary: 'Only a held order can be resolved', message: 'The order is completed, not held', details: { status: 'completed' } },
  HOLD_CLAIMED: {
    summary: 'Another operator claimed the hold: take it over explicitly (takeOver: true) or leave it to them',
    message: 'operator:bob claimed this hold; send takeOver: true to take it over',
    details: { claimedBy: 'operator:bob', claimedAt: '2026-11-28T10:00:00.000Z' },
  },
  RECEIPT_NOT_READY: { summary: 'The order is not final yet, or its receipt is being signed', message: 'The order is sending; its receipt is signed once it is final', details: { status: 'sending' } },
  LAST_ACTIVE_KEY: {
    summary: 'No other key would stay active for 24 h (or an expiring key tried to revoke the last one that never expires): create another first',
    message: 'Revoking key k7m2xq4p3rwa would leave this account no key active for the next 24 hours; create another (without an expiry, or one at least 24 hours away) before revoking it',
    details: { keyId: 'k7m2xq4p3rwa' },
  },
  TOO_MANY_KEYS: { summary: 'The account has as many active keys as it may', message: 'This account has 10 active keys, the most it may have; revoke one first', details: { maxActiveKeys: 10 } },
  ORDER_NOT_REFRESHABLE: { summary: 'The order is past awaiting_deposit', message: 'The order is deposit_confirmed, not awaiting a deposit', details: { status: 'deposit_confirmed' } },
  DEPOSIT_MISMATCH: { summary: "The transaction is not this order's deposit", message: "The transaction did not fund this order's deposit account", details: { reason: 'not_this_deposit' } },
  QUOTE_EXPIRED: { summary: 'The quote is past expiresAt', message: 'The quote has expired; request a new one', details: { expiresAt: '2026-11-21T10:01:00.000Z' } },
  ORDER_EXPIRED: { summary: 'The order is past its expiration', message: 'The order has expired; request a new quote', details: { expiration: '2026-11-21T10:30:02.000Z' } },
  PAYLOAD_TOO_LARGE: { summary: 'The body is over the limit', message: `Request body exceeds ${BODY_LIMIT} bytes`, details: { limitBytes: BODY_LIMIT } },
  UNSUPPORTED_MEDIA_TYPE: { summary: 'The body is not JSON', message: 'Send the request body as application/json' },
  RATE_LIMITED: { summary: "The account's bucket is empty (all its keys draw on it); wait Retry-After seconds", message: 'Too many requests for this account (all its keys together); slow down' },
  TOO_MANY_OPEN_ORDERS: {
    summary: 'Too many orders await a deposit',
    message: 'This account has 50 orders awaiting a deposit; fund one or let it expire before creating another',
    details: { maxOpenOrders: 50 },
  },
  INTERNAL_ERROR: { summary: 'A fault of Hush; quote the requestId to support', message: 'Internal error' },
  CHAIN_UNAVAILABLE: { summary: 'The Solana RPC does not answer; retry after Retry-After', message: 'The Solana RPC is unavailable; retry shortly' },
  INSUFFICIENT_LIQUIDITY: { summary: 'Hush cannot pay this much out now', message: 'Not enough sol liquidity to quote right now; retry shortly', details: { assetId: 'sol' } },
  SERVICE_UNAVAILABLE: { summary: 'Hush cannot reach its store; retry after Retry-After', message: 'The service cannot reach its store; retry shortly' },
};

const bodyInvalid = (field: string, reason: string): ErrorExample => ({
  summary: `${field} is invalid`,
  message: `Invalid request: ${field} ${reason}`,
  details: { field, reason },
});
const malformedJson: ErrorExample = { summary: 'The body is not valid JSON', message: 'Invalid request: malformed JSON', details: { reason: 'malformed JSON' } };

/** Where an operation says it with its own words. */
const BY_OPERATION: { [Op in OperationId]?: Partial<Record<HushErrorCode, ErrorExample>> } = {
  createQuote: { INVALID_REQUEST: { ...bodyInvalid('amount', AMOUNT_FIX), summary: 'amount is not in base units (the common mistake)' } },
  createOrder: {
    INVALID_REQUEST: { summary: 'A bad idempotency key', message: 'Idempotency-Key must be 1–255 printable ASCII characters', details: { field: 'Idempotency-Key' } },
    UNSUPPORTED_ASSET: {
      summary: "The quote's asset is no longer offered",
      message: 'Asset "bonk" is no longer supported; valid asset ids: sol, usdc, usdt',
      details: { field: 'sourceAssetId', assetId: 'bonk' },
    },
    FEE_RECIPIENT_NOT_REGISTERED: {
      summary: 'The fee recipient was unregistered after the quote',
      message: 'feeRecipientAddress is no longer registered to this account',
      details: { feeRecipientAddress: '6vF9dEe8PM67Hz4J1roExQGHkqac2Uw4u97bVxspus3L' },
    },
    INSUFFICIENT_LIQUIDITY: {
      summary: 'Hush cannot pay this order out now',
      message: 'Not enough liquidity to fill this order right now; retry shortly or request a smaller quote',
      details: { assetId: 'sol' },
    },
  },
  refreshOrder: { INVALID_REQUEST: malformedJson },
  getStatus: { INVALID_REQUEST: { summary: 'A malformed escape in the path', message: 'Invalid request: malformed URL', details: { reason: 'malformed URL' } } },
  sendDepositHint: { INVALID_REQUEST: { summary: 'A required field is missing', message: 'Invalid request: missing signature (required)', details: { field: 'signature', reason: 'required' } } },
  sendTestWebhook: {
    INVALID_REQUEST: malformedJson,
    NOT_FOUND: { summary: 'The account has no webhook', message: NO_WEBHOOK },
  },
  setWebhook: {
    INVALID_REQUEST: {
      summary: 'Not an https URL, or one with credentials',
      message: 'url must be an absolute https URL without credentials (http only to localhost), at most 2048 characters',
      details: { field: 'url' },
    },
  },
  clearWebhook: { INVALID_REQUEST: malformedJson },
  rotateWebhookSecret: { INVALID_REQUEST: malformedJson, NOT_FOUND: { summary: 'The account has no webhook', message: NO_WEBHOOK } },
  createApiKey: { INVALID_REQUEST: bodyInvalid('expiresInSeconds', 'must be >= 60') },
  revokeApiKey: {
    INVALID_REQUEST: malformedJson,
    NOT_FOUND: { summary: "No such key on this account (another account's key id included)", message: 'No API key with id "b3nt5vd6ye2c" on this account' },
  },
};

/** The OpenAPI Example Object of one code of one operation. */
export function errorExample(op: OperationId, code: HushErrorCode): { summary: string; value: unknown } {
  const e = BY_OPERATION[op]?.[code] ?? BY_CODE[code];
  const error: Record<string, unknown> = { code, message: e.message };
  if (e.details !== undefined) error.details = e.details;
  error.requestId = REQUEST_ID;
  return { summary: e.summary, value: { success: false, error } };
}
