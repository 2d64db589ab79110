import { Type, type TSchema } from 'typebox';
import { ORDER_STATUSES } from '../../domain/order-state.ts';

/** The field types the wire shapes are built from, each with the description and format a partner reads. */

/** The wire form of an amount (decimal digits, no leading zero); the error handler names the fix when it fails. */
export const AMOUNT_PATTERN = '^(0|[1-9][0-9]*)$';
/** What newTrackingId issues (src/domain/tracking-id.ts). */
export const TRACKING_ID_PATTERN = '^trk_[1-9A-HJ-NP-Za-km-z]{22}$';
/** What issueQuote issues (src/domain/quote-token.ts): "q_" and the base64url of the signed quote. */
export const QUOTE_ID_PATTERN = '^q_[A-Za-z0-9_-]+$';

const BASE_UNITS =
  'in base units (the asset\'s smallest unit: lamports for SOL, 10^-6 USDC for USDC) as a string of decimal digits: no sign, decimal point, exponent or leading zero';

/** An amount in an answer. */
export const amount = (what: string) => Type.String({ pattern: AMOUNT_PATTERN, maxLength: 40, description: `${what}, ${BASE_UNITS}` });
/**
 * An amount in a request: no length limit, so an amount too large is answered AMOUNT_TOO_HIGH, not
 * INVALID_REQUEST; the pattern is AMOUNT_PATTERN, which the error handler recognises.
 */
export const requestAmount = (what: string) => Type.String({ pattern: AMOUNT_PATTERN, description: `${what}, ${BASE_UNITS}. 25.5 USDC is "25500000"` });

/** Requests carry no length limits on addresses or ids: the service answers them with their own codes. */
export const address = (what: string) => Type.String({ description: `${what}: a base58 Solana wallet address (32 bytes, 32–44 characters)` });
export const assetId = (what: string) => Type.String({ description: `${what}: an assetId from GET /transfer/v1/tokens (e.g. "sol", "usdc")` });

// No `format`/`enum` where a schema sits in a union: fast-json-stringify checks union branches with ajv,
// so a value outside them would turn an answer into a 500 (outside unions they are documentation only).
export const timestamp = (what: string) => Type.String({ description: `${what}: ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z` });
export const nullableTimestamp = (what: string) => Type.Union([Type.String(), Type.Null()], { description: `${what}: ISO 8601 UTC with milliseconds, or null` });

export const trackingId = (options: { pattern?: string; maxLength?: number } = {}) =>
  Type.String({ ...options, description: 'The order\'s tracking id: "trk_" and 22 base58 characters, issued by POST /transfer/v1/order; the only name of an order in this API' });
export const signature = (what: string) => Type.String({ description: `${what}: a base58 Solana transaction signature (64 bytes, 86–88 characters)` });

export const OrderStatus = Type.String({
  title: 'OrderStatus',
  enum: [...ORDER_STATUSES],
  description:
    'Order state. awaiting_deposit → deposit_detected → deposit_confirmed → (swapping →) sending → completed; an order not funded in time is expired; a deposit that cannot be delivered goes refunding → refunded; failed means the funds are held and the operator alerted; held means screening stopped the order before anything was sent and an operator will release it (back to deposit_confirmed), refund it, or freeze it (frozen: the funds are kept). completed, expired, refunded, failed and frozen are final',
});

export const success = (value: boolean) =>
  Type.Literal(value, { description: value ? 'Always true on a 2xx answer' : 'Always false on an error answer; the error object says why' });

export const header = (description: string, schema: TSchema = Type.String()) => ({ ...schema, description });
