import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HUSH_ERROR_CODES, HushError, hasRetryAfter, httpStatusOf, isHushError } from '../../src/domain/errors.ts';

// docs/spec.md §6, transcribed independently of the implementation's table.
const SPEC: Record<number, string> = {
  400: 'INVALID_REQUEST INVALID_ADDRESS UNSUPPORTED_ASSET UNSUPPORTED_MODE PAIR_NOT_SUPPORTED AMOUNT_TOO_LOW AMOUNT_TOO_HIGH FEE_BPS_TOO_HIGH FEE_RECIPIENT_REQUIRED INVALID_SIGNATURE WEBHOOK_URL_REFUSED',
  401: 'UNAUTHORIZED',
  403: 'FEE_RECIPIENT_NOT_REGISTERED FORBIDDEN ACCOUNT_SUSPENDED ADDRESS_BLOCKED',
  404: 'NOT_FOUND QUOTE_NOT_FOUND',
  409: 'QUOTE_MISMATCH QUOTE_ALREADY_USED IDEMPOTENCY_CONFLICT ORDER_IN_PROGRESS ORDER_NOT_REFRESHABLE DEPOSIT_MISMATCH ORDER_NOT_HELD APPROVAL_CONFLICT HOLD_CLAIMED RECEIPT_NOT_READY LAST_ACTIVE_KEY TOO_MANY_KEYS',
  410: 'QUOTE_EXPIRED ORDER_EXPIRED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED TOO_MANY_OPEN_ORDERS',
  500: 'INTERNAL_ERROR',
  503: 'CHAIN_UNAVAILABLE INSUFFICIENT_LIQUIDITY SERVICE_UNAVAILABLE',
};

describe('errors', () => {
  it('maps every docs/spec.md §6 code to its status, and no other code exists', () => {
    const expected = new Map<string, number>();
    for (const [status, codes] of Object.entries(SPEC)) for (const c of codes.split(' ')) expected.set(c, Number(status));
    assert.deepEqual([...HUSH_ERROR_CODES].sort(), [...expected.keys()].sort());
    for (const code of HUSH_ERROR_CODES) assert.equal(httpStatusOf(code), expected.get(code), code);
  });

  it('carries Retry-After exactly for 429, 503, ORDER_IN_PROGRESS and RECEIPT_NOT_READY', () => {
    for (const code of HUSH_ERROR_CODES) {
      const want = httpStatusOf(code) === 429 || httpStatusOf(code) === 503 || code === 'ORDER_IN_PROGRESS' || code === 'RECEIPT_NOT_READY';
      assert.equal(hasRetryAfter(code), want, code);
    }
    assert.equal(new HushError('ORDER_IN_PROGRESS', 'busy').retryAfterSeconds, 1);
    assert.equal(new HushError('RATE_LIMITED', 'slow down', undefined, { retryAfterSeconds: 2.2 }).retryAfterSeconds, 3);
    assert.equal(new HushError('QUOTE_NOT_FOUND', 'no', undefined, { retryAfterSeconds: 9 }).retryAfterSeconds, undefined);
  });

  it('is one class with a stable code, typed details and a wire form', () => {
    const e = new HushError('AMOUNT_TOO_LOW', 'too low', { min: '10', max: '99' });
    assert.ok(e instanceof Error);
    assert.ok(isHushError(e, 'AMOUNT_TOO_LOW'));
    assert.ok(!isHushError(e, 'AMOUNT_TOO_HIGH'));
    assert.equal(e.httpStatus, 400);
    assert.deepEqual(e.toWire(), { code: 'AMOUNT_TOO_LOW', message: 'too low', details: { min: '10', max: '99' } });
    assert.deepEqual(new HushError('UNAUTHORIZED', 'unauthorized').toWire(), { code: 'UNAUTHORIZED', message: 'unauthorized' });
    const withCause = new HushError('INTERNAL_ERROR', 'internal error', undefined, { cause: new Error('SELECT secret') });
    assert.ok(!JSON.stringify(withCause.toWire()).includes('SELECT'));
    // @ts-expect-error QUOTE_MISMATCH requires details.field
    void new HushError('QUOTE_MISMATCH', 'mismatch');
  });
});
