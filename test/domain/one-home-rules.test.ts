import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chainUnavailable, readingChain } from '../../src/domain/chain-unavailable.ts';
import { HushError } from '../../src/domain/errors.ts';
import { aboveWrappedSolReserve, spendableBalance } from '../../src/domain/reserves.ts';
import { settledFate } from '../../src/domain/settlement/tx-fate.ts';

// The rules that each had several copies (issue 36), pinned to the values the copies held.
describe('one home per rule', () => {
  test('a SOL pool keeps 0.01 SOL back; a token pool pays its whole token amount', () => {
    assert.equal(spendableBalance(true, { lamports: 15_000_000n, tokenAmount: null }), 5_000_000n);
    assert.equal(spendableBalance(true, { lamports: 1n, tokenAmount: null }), 1n - 10_000_000n, 'below its reserve: negative, callers clamp');
    assert.equal(spendableBalance(true, undefined), -10_000_000n);
    assert.equal(spendableBalance(false, { lamports: 2_039_280n, tokenAmount: 7n }), 7n);
    assert.equal(spendableBalance(false, undefined), 0n);
  });

  test("a wrapped-SOL account's token amount is its lamports above a token account's rent", () => {
    assert.equal(aboveWrappedSolReserve(2_039_280n + 5n), 5n);
    assert.equal(aboveWrappedSolReserve(2_039_280n), 0n);
    assert.equal(aboveWrappedSolReserve(1n), 0n);
  });

  test('a transaction has landed or failed only once visible at confirmed or deeper', () => {
    assert.equal(settledFate(null), null);
    assert.equal(settledFate(undefined), null);
    assert.equal(settledFate({ confirmationStatus: 'processed', err: null }), null);
    assert.equal(settledFate({ confirmationStatus: 'confirmed', err: null }), 'landed');
    assert.equal(settledFate({ confirmationStatus: 'finalized', err: { InstructionError: [0, 'Custom'] } }), 'failed');
  });

  test('a chain read that fails answers 503 CHAIN_UNAVAILABLE with its cause; a HushError passes as it is', async () => {
    const cause = new Error('socket hang up');
    const e = await readingChain(() => Promise.reject(cause)).catch((x: unknown) => x);
    assert.ok(e instanceof HushError && e.code === 'CHAIN_UNAVAILABLE' && e.httpStatus === 503 && e.cause === cause);
    assert.equal(e.message, 'The Solana RPC is unavailable; retry shortly');
    const own = new HushError('NOT_FOUND', 'No order');
    assert.equal(await readingChain(() => Promise.reject(own)).catch((x: unknown) => x), own);
    assert.equal(await readingChain(async () => 7), 7);
    assert.equal(chainUnavailable(cause, 30).retryAfterSeconds, 30, "a provider's longer Retry-After is kept");
    assert.equal(chainUnavailable().retryAfterSeconds, new HushError('CHAIN_UNAVAILABLE', 'x').retryAfterSeconds, 'else the default');
  });
});
