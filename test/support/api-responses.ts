/**
 * What every test response must be (docs/spec.md §2 and §6): an `X-Request-Id` header, the error body shape on
 * failures, and no key secret, treasury seed, admin token, stack frame or SQL text in any body.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

/** Every secret any test server handed out; no response body may ever contain one of them. */
const SECRETS = new Set<string>();

export function base58(n: number): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let s = '';
  for (const b of randomBytes(n)) s += alphabet[b % 58];
  return s;
}

/** Adds a secret to the set no response may contain (e.g. a key issued through the admin API, once received). */
export function registerSecret(secret: string): void {
  SECRETS.add(secret);
}

export function secretOf(apiKey: string): string {
  return apiKey.slice('hush_'.length + 12 + 1);
}

// ------------------------------------------------------------------------------------------ HTTP

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any;
  text: string;
  /** The X-Request-Id the request carried (undefined when none was sent). */
  sentRequestId?: string;
}

export interface RequestOptions {
  /** API key; `null` sends no Authorization header. Defaults to the client's key. */
  key?: string | null;
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent verbatim (with `content-type: application/json` unless overridden in headers). */
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** Send from this local address (127.x.y.z) instead of the default one: a different client to per-address limits. */
  from?: string;
}

const STACK_FRAME = /\bat (?:async )?[\w.<>$]+ \(|\bat (?:file|node):|\.(?:ts|js|mjs):\d+:\d+|node_modules/;
const SQL_TEXT = /\b(?:SELECT\s+[\w*]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|ON CONFLICT|RETURNING|CREATE\s+TABLE)\b|syntax error at|violates (?:unique|check|foreign key|not-null)|duplicate key value|relation "\w+"|idempotency_keys|tracking_id|account_id/i;

/** The checks that hold for every response of the API (docs/spec.md §2, §6). */
export function assertResponseInvariants(res: ApiResponse, where: string): void {
  const rid = res.headers.get('x-request-id');
  assert.ok(rid && rid.length > 0, `${where}: X-Request-Id header missing (status ${res.status})`);
  if (res.sentRequestId !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(res.sentRequestId)) {
    assert.equal(rid, res.sentRequestId, `${where}: well-formed X-Request-Id not echoed`);
  }
  assert.ok(res.status < 500 || res.status === 503, `${where}: unexpected server error ${res.status}: ${res.text.slice(0, 500)}`);
  for (const s of SECRETS) assert.ok(!res.text.includes(s), `${where}: response leaks a secret`);
  // HTML (the /docs page) and Prometheus text are not error bodies; everything else is checked for leaks.
  const ctype = res.headers.get('content-type') ?? '';
  if (ctype.includes('json')) {
    assert.ok(!STACK_FRAME.test(res.text), `${where}: response contains a stack trace: ${res.text.slice(0, 300)}`);
    assert.ok(!SQL_TEXT.test(res.text), `${where}: response contains SQL text: ${res.text.slice(0, 300)}`);
  }
  // A HEAD response has no body by definition (RFC 9110); everything else that fails carries the shape.
  if (res.status >= 400 && !where.startsWith('HEAD ')) assertErrorShape(res, where);
}

/** docs/spec.md §6, transcribed independently of src/domain/errors.ts: every code and its HTTP status. */
export const SPEC_ERROR_STATUS: Readonly<Record<string, number>> = {
  INVALID_REQUEST: 400, INVALID_ADDRESS: 400, UNSUPPORTED_ASSET: 400, UNSUPPORTED_MODE: 400, PAIR_NOT_SUPPORTED: 400,
  AMOUNT_TOO_LOW: 400, AMOUNT_TOO_HIGH: 400, FEE_BPS_TOO_HIGH: 400, FEE_RECIPIENT_REQUIRED: 400, INVALID_SIGNATURE: 400, WEBHOOK_URL_REFUSED: 400,
  UNAUTHORIZED: 401,
  FEE_RECIPIENT_NOT_REGISTERED: 403, FORBIDDEN: 403, ACCOUNT_SUSPENDED: 403, ADDRESS_BLOCKED: 403,
  NOT_FOUND: 404, QUOTE_NOT_FOUND: 404,
  QUOTE_MISMATCH: 409, QUOTE_ALREADY_USED: 409, IDEMPOTENCY_CONFLICT: 409, ORDER_IN_PROGRESS: 409, ORDER_NOT_REFRESHABLE: 409, DEPOSIT_MISMATCH: 409, ORDER_NOT_HELD: 409, APPROVAL_CONFLICT: 409, HOLD_CLAIMED: 409, RECEIPT_NOT_READY: 409, LAST_ACTIVE_KEY: 409, TOO_MANY_KEYS: 409,
  QUOTE_EXPIRED: 410, ORDER_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429, TOO_MANY_OPEN_ORDERS: 429,
  INTERNAL_ERROR: 500,
  CHAIN_UNAVAILABLE: 503, INSUFFICIENT_LIQUIDITY: 503, SERVICE_UNAVAILABLE: 503,
};
/** Codes whose response must carry Retry-After (docs/spec.md §4, §6). */
const RETRY_AFTER_CODES = new Set(['ORDER_IN_PROGRESS', 'RECEIPT_NOT_READY', 'RATE_LIMITED', 'TOO_MANY_OPEN_ORDERS', 'CHAIN_UNAVAILABLE', 'INSUFFICIENT_LIQUIDITY', 'SERVICE_UNAVAILABLE']);

/**
 * `{ success: false, error: { code, message, details?, requestId } }` with requestId = X-Request-Id, a
 * docs/spec.md §6 code whose HTTP status is the response's, and Retry-After where SPEC requires it.
 */
export function assertErrorShape(res: ApiResponse, where = 'response'): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${where}: error content-type`);
  const b = res.body;
  assert.equal(typeof b, 'object', `${where}: error body is not JSON: ${res.text.slice(0, 200)}`);
  assert.ok(b !== null && !Array.isArray(b));
  assert.deepEqual(Object.keys(b).sort(), ['error', 'success'], `${where}: top-level keys ${JSON.stringify(Object.keys(b))}`);
  assert.equal(b.success, false);
  const e = b.error;
  assert.equal(typeof e, 'object');
  for (const k of Object.keys(e)) assert.ok(['code', 'message', 'details', 'requestId'].includes(k), `${where}: unexpected error key ${k}`);
  assert.match(e.code, /^[A-Z][A-Z_]+$/);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0);
  if ('details' in e) assert.ok(typeof e.details === 'object' && e.details !== null && !Array.isArray(e.details), `${where}: details must be an object`);
  assert.equal(e.requestId, res.headers.get('x-request-id'), `${where}: error.requestId must equal X-Request-Id`);
  assert.ok(e.code in SPEC_ERROR_STATUS, `${where}: ${e.code} is not a docs/spec.md §6 code`);
  assert.equal(res.status, SPEC_ERROR_STATUS[e.code], `${where}: ${e.code} must be HTTP ${SPEC_ERROR_STATUS[e.code]}, got ${res.status}`);
  if (RETRY_AFTER_CODES.has(e.code)) assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${where}: ${e.code} needs Retry-After`);
}

/** Asserts an error response with the exact status and code; returns the error object. */
export function expectError(res: ApiResponse, status: number, code: string): { code: string; message: string; details?: any; requestId: string } {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text.slice(0, 400)}`);
  assertErrorShape(res);
  assert.equal(res.body.error.code, code, `expected ${code}, got ${res.body.error.code}: ${res.body.error.message}`);
  return res.body.error;
}

export function expectOk(res: ApiResponse, status = 200): any {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text.slice(0, 400)}`);
  assert.equal(res.body.success, true);
  return res.body;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
