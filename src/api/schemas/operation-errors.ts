import type { HushErrorCode } from '../../domain/errors.ts';

/**
 * Which error codes each partner operation can answer, in one place: the routes document these (one
 * response per status, error.code narrowed to them), every one of them gets a worked example, and
 * test/api/openapi-completeness.test.ts checks both against what the routes are built from.
 */

/**
 * What any partner route can answer besides its own outcomes: a request without exactly one Host header,
 * a refused key, a limit, a store outage, and the 500 that should never happen but is part of the contract.
 */
export const ANY_ROUTE = ['INVALID_REQUEST', 'UNAUTHORIZED', 'ACCOUNT_SUSPENDED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'] as const;
/** … a route with a path parameter: a malformed escape in it (400), one longer than any id (404) … */
export const WITH_PARAM = [...ANY_ROUTE, 'NOT_FOUND'] as const;
/** … and a route with a JSON body. */
export const WITH_BODY = [...ANY_ROUTE, 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const;

export const OPERATION_ERRORS = {
  listTokens: [...ANY_ROUTE],
  createQuote: [
    ...WITH_BODY,
    'INVALID_ADDRESS',
    'UNSUPPORTED_ASSET',
    'UNSUPPORTED_MODE',
    'PAIR_NOT_SUPPORTED',
    'AMOUNT_TOO_LOW',
    'AMOUNT_TOO_HIGH',
    'FEE_BPS_TOO_HIGH',
    'FEE_RECIPIENT_REQUIRED',
    'FEE_RECIPIENT_NOT_REGISTERED',
    'ADDRESS_BLOCKED',
    'INSUFFICIENT_LIQUIDITY',
    'CHAIN_UNAVAILABLE',
  ],
  createOrder: [
    ...WITH_BODY,
    'INVALID_ADDRESS',
    'QUOTE_NOT_FOUND',
    'QUOTE_MISMATCH',
    'QUOTE_ALREADY_USED',
    'QUOTE_EXPIRED',
    'IDEMPOTENCY_CONFLICT',
    'ORDER_IN_PROGRESS',
    'FEE_RECIPIENT_NOT_REGISTERED',
    'UNSUPPORTED_ASSET',
    'TOO_MANY_OPEN_ORDERS',
    'INSUFFICIENT_LIQUIDITY',
    'CHAIN_UNAVAILABLE',
  ],
  refreshOrder: [...WITH_BODY, ...WITH_PARAM, 'ORDER_NOT_REFRESHABLE', 'ORDER_EXPIRED', 'CHAIN_UNAVAILABLE'],
  getStatus: [...WITH_PARAM],
  findOrderByQuote: [...WITH_PARAM],
  getReceipt: [...WITH_PARAM, 'RECEIPT_NOT_READY'],
  listReceiptKeys: [...ANY_ROUTE],
  sendDepositHint: [...WITH_BODY, 'INVALID_SIGNATURE', 'NOT_FOUND', 'DEPOSIT_MISMATCH', 'CHAIN_UNAVAILABLE'],
  sendTestWebhook: [...WITH_BODY, 'NOT_FOUND'],
  // The partner's own account. A DELETE without a documented body still has one parsed when sent (413, 415).
  getAccount: [...ANY_ROUTE],
  setWebhook: [...WITH_BODY, 'WEBHOOK_URL_REFUSED'],
  clearWebhook: [...WITH_BODY],
  rotateWebhookSecret: [...WITH_BODY, 'NOT_FOUND'],
  createApiKey: [...WITH_BODY, 'TOO_MANY_KEYS'],
  revokeApiKey: [...WITH_BODY, ...WITH_PARAM, 'LAST_ACTIVE_KEY'],
} as const satisfies Record<string, readonly HushErrorCode[]>;

export type OperationId = keyof typeof OPERATION_ERRORS;
