/**
 * The one error type of the domain, modelled on @solana/kit's SolanaError: a single class, a stable
 * `code` that clients branch on (docs/spec.md §6), and `details` whose shape is fixed per code by the type
 * system, so the API layer can serialise any HushError without knowing where it came from.
 */

/** Every code of docs/spec.md §6 with its HTTP status; the table is the single source of truth. */
const HTTP_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_ADDRESS: 400,
  UNSUPPORTED_ASSET: 400,
  UNSUPPORTED_MODE: 400,
  PAIR_NOT_SUPPORTED: 400,
  AMOUNT_TOO_LOW: 400,
  AMOUNT_TOO_HIGH: 400,
  FEE_BPS_TOO_HIGH: 400,
  FEE_RECIPIENT_REQUIRED: 400,
  INVALID_SIGNATURE: 400,
  WEBHOOK_URL_REFUSED: 400,
  UNAUTHORIZED: 401,
  FEE_RECIPIENT_NOT_REGISTERED: 403,
  FORBIDDEN: 403,
  ACCOUNT_SUSPENDED: 403,
  ADDRESS_BLOCKED: 403,
  NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  QUOTE_MISMATCH: 409,
  QUOTE_ALREADY_USED: 409,
  IDEMPOTENCY_CONFLICT: 409,
  ORDER_IN_PROGRESS: 409,
  ORDER_NOT_REFRESHABLE: 409,
  DEPOSIT_MISMATCH: 409,
  ORDER_NOT_HELD: 409,
  APPROVAL_CONFLICT: 409,
  HOLD_CLAIMED: 409,
  RECEIPT_NOT_READY: 409,
  LAST_ACTIVE_KEY: 409,
  TOO_MANY_KEYS: 409,
  QUOTE_EXPIRED: 410,
  ORDER_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  TOO_MANY_OPEN_ORDERS: 429,
  INTERNAL_ERROR: 500,
  CHAIN_UNAVAILABLE: 503,
  INSUFFICIENT_LIQUIDITY: 503,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type HushErrorCode = keyof typeof HTTP_STATUS;
export type HttpStatus = (typeof HTTP_STATUS)[HushErrorCode];

export const HUSH_ERROR_CODES = Object.keys(HTTP_STATUS) as readonly HushErrorCode[];

export function httpStatusOf(code: HushErrorCode): HttpStatus {
  return HTTP_STATUS[code];
}

/**
 * `details` per code, as sent on the wire (amounts are decimal strings). `undefined` means the code
 * carries no details; a union with `undefined` means they are optional. Nothing here may hold a
 * secret, key, SQL or stack (docs/spec.md §6).
 */
export interface HushErrorDetails {
  INVALID_REQUEST: { field?: string; reason?: string } | undefined;
  /** reason: invalid, off_curve, sysvar, program, mint, hush_address (docs/spec.md §4). */
  INVALID_ADDRESS: { field: string; reason?: string };
  UNSUPPORTED_ASSET: { field: string; assetId: string };
  UNSUPPORTED_MODE: { mode: string };
  PAIR_NOT_SUPPORTED: { sourceAssetId: string; destinationAssetId: string };
  AMOUNT_TOO_LOW: { min: string; max: string };
  AMOUNT_TOO_HIGH: { min: string; max: string };
  FEE_BPS_TOO_HIGH: { feeCapBps: number };
  FEE_RECIPIENT_REQUIRED: { field: 'feeRecipientAddress' };
  INVALID_SIGNATURE: { field: string } | undefined;
  /** docs/spec.md §3: the webhook egress rules refuse the URL's address (not_public) or its plain http (plain_http). */
  WEBHOOK_URL_REFUSED: { field: 'url'; reason: 'not_public' | 'plain_http' };
  UNAUTHORIZED: undefined;
  FEE_RECIPIENT_NOT_REGISTERED: { feeRecipientAddress: string };
  /** docs/spec.md §12 (admin API): the operator's role does not allow this. */
  FORBIDDEN: { role: string };
  ACCOUNT_SUSPENDED: undefined;
  /** docs/spec.md §12: which field named a screened-out address; never which list. */
  ADDRESS_BLOCKED: { field: 'senderAddress' | 'recipientAddress' | 'feeRecipientAddress' };
  NOT_FOUND: undefined;
  QUOTE_NOT_FOUND: undefined;
  QUOTE_MISMATCH: { field: string };
  /** The order the quote backs (the caller's own), when it could be read. */
  QUOTE_ALREADY_USED: { trackingId: string } | undefined;
  IDEMPOTENCY_CONFLICT: undefined;
  ORDER_IN_PROGRESS: undefined;
  ORDER_NOT_REFRESHABLE: { status: string };
  DEPOSIT_MISMATCH: { reason: string; mint?: string } | undefined;
  /** docs/spec.md §12 (admin API): only a held order can be resolved. */
  ORDER_NOT_HELD: { status: string };
  /** docs/spec.md §12 (admin API, four eyes): a proposal already awaits for the hold, or the one named was decided. */
  APPROVAL_CONFLICT: { approvalId: string; status: string };
  /** docs/spec.md §12 (admin API): another operator claimed the hold; take it over explicitly (`takeOver: true`). */
  HOLD_CLAIMED: { claimedBy: string; claimedAt: string };
  /** docs/spec.md §12: a receipt exists once the order is final and signed (seconds after). */
  RECEIPT_NOT_READY: { status: string };
  /** docs/spec.md §4 (self-service): the key is the account's only active one; create another first. */
  LAST_ACTIVE_KEY: { keyId: string };
  /** docs/spec.md §4 (self-service): the account already has this many active keys. */
  TOO_MANY_KEYS: { maxActiveKeys: number };
  QUOTE_EXPIRED: { expiresAt: string };
  ORDER_EXPIRED: { expiration: string };
  PAYLOAD_TOO_LARGE: { limitBytes: number };
  UNSUPPORTED_MEDIA_TYPE: undefined;
  RATE_LIMITED: undefined;
  TOO_MANY_OPEN_ORDERS: { maxOpenOrders: number };
  INTERNAL_ERROR: undefined;
  CHAIN_UNAVAILABLE: undefined;
  INSUFFICIENT_LIQUIDITY: { assetId: string } | undefined;
  SERVICE_UNAVAILABLE: undefined;
}

// Compile-time check that the details map covers exactly the codes of the status table.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const detailsCoverEveryCode: Exact<keyof HushErrorDetails, HushErrorCode> = true;
void detailsCoverEveryCode;

/** Codes whose response carries `Retry-After` (docs/spec.md §4, §6), with the default seconds. */
const DEFAULT_RETRY_AFTER_S: Partial<Record<HushErrorCode, number>> = {
  ORDER_IN_PROGRESS: 1,
  RECEIPT_NOT_READY: 5,
  RATE_LIMITED: 1,
  TOO_MANY_OPEN_ORDERS: 60,
  CHAIN_UNAVAILABLE: 5,
  INSUFFICIENT_LIQUIDITY: 5,
  SERVICE_UNAVAILABLE: 5,
};

export function hasRetryAfter(code: HushErrorCode): boolean {
  return DEFAULT_RETRY_AFTER_S[code] !== undefined;
}

export interface HushErrorOptions {
  /** Only kept for codes that send `Retry-After`; a whole number of seconds ≥ 1. */
  retryAfterSeconds?: number;
  /** Internal cause for logs; never serialised. */
  cause?: unknown;
}

type DetailsArgs<C extends HushErrorCode> = undefined extends HushErrorDetails[C]
  ? [details?: HushErrorDetails[C], options?: HushErrorOptions]
  : [details: HushErrorDetails[C], options?: HushErrorOptions];

/** The client-facing error object of docs/spec.md §2 (without `requestId`, which the API layer adds). */
export interface WireError {
  code: HushErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export class HushError<C extends HushErrorCode = HushErrorCode> extends Error {
  override readonly name = 'HushError';
  readonly code: C;
  readonly details: HushErrorDetails[C];
  readonly httpStatus: HttpStatus;
  readonly retryAfterSeconds?: number;

  constructor(code: C, message: string, ...[details, options]: DetailsArgs<C>) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details as HushErrorDetails[C];
    this.httpStatus = httpStatusOf(code);
    const fallback = DEFAULT_RETRY_AFTER_S[code];
    if (fallback !== undefined) {
      const requested = options?.retryAfterSeconds;
      this.retryAfterSeconds =
        requested !== undefined && Number.isFinite(requested) ? Math.max(1, Math.ceil(requested)) : fallback;
    }
  }

  /** What goes into the response body; the message is author-written, never an internal error text. */
  toWire(): WireError {
    const wire: WireError = { code: this.code, message: this.message };
    if (this.details !== undefined) wire.details = { ...this.details };
    return wire;
  }
}

/** Type guard in the style of kit's isSolanaError: narrows `details` when a code is given. */
export function isHushError<C extends HushErrorCode>(error: unknown, code?: C): error is HushError<C> {
  return error instanceof HushError && (code === undefined || error.code === code);
}
