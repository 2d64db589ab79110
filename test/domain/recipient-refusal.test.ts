/**
 * The pure rules behind docs/spec.md §4 and §10: the static reserved addresses, and which failed payout
 * attempts say the recipient, not Hush, makes the chain refuse it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAddress } from '@solana/kit';
import { NATIVE_MINTS, reservedKind, reservedPrograms } from '../../src/domain/reserved-addresses.ts';
import { REFUSALS_BEFORE_REFUND, instructionFailure, recipientRefused } from '../../src/domain/settlement/recipient-refusal.ts';

const ix = (index: number, inner: unknown) => ({ InstructionError: [index, inner] });

describe('reserved addresses', () => {
  test('every listed program and native mint is a valid address; sysvars by their prefix, ordinary keys not', () => {
    for (const a of [...reservedPrograms(), ...NATIVE_MINTS]) assert.ok(isAddress(a), a);
    for (const a of reservedPrograms()) assert.equal(reservedKind(a), 'program', a);
    for (const s of ['SysvarC1ock11111111111111111111111111111111', 'SysvarEpochRewards1111111111111111111111111', 'Sysvar1nstructions1111111111111111111111111']) assert.equal(reservedKind(s), 'sysvar');
    assert.equal(reservedKind('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), null);
  });
});

describe('recipientRefused', () => {
  test('an error only the recipient can cause refuses at once, on an instruction after the compute budget', () => {
    assert.equal(recipientRefused([ix(2, 'ReadonlyLamportChange')], 2), true);
    assert.equal(recipientRefused([ix(3, 'ExecutableLamportChange')], 2), true);
    // On a compute-budget instruction it is not the recipient's.
    assert.equal(recipientRefused([ix(1, 'ReadonlyLamportChange')], 2), false);
  });

  test(`the same error on the same instruction ${REFUSALS_BEFORE_REFUND} times in a row refuses; fewer, mixed or Hush's own do not`, () => {
    const frozen = ix(3, { Custom: 17 });
    assert.equal(recipientRefused([frozen, frozen], 2), false);
    assert.equal(recipientRefused([frozen, frozen, frozen], 2), true);
    assert.equal(recipientRefused([frozen, ix(3, { Custom: 18 }), frozen], 2), false);
    assert.equal(recipientRefused([frozen, frozen, ix(2, { Custom: 17 })], 2), false);
    // A pool short (a race), the compute budget, a transaction-level error: never the recipient's.
    for (const hush of [ix(3, { Custom: 1 }), ix(2, 'InsufficientFunds'), ix(2, 'ComputationalBudgetExceeded'), 'InsufficientFundsForFee', null]) {
      assert.equal(recipientRefused([hush, hush, hush, hush], 2), false, JSON.stringify(hush));
    }
  });

  test('instructionFailure reads the RPC JSON, bigint indices too', () => {
    assert.deepEqual(instructionFailure({ InstructionError: [2n, { Custom: 17n }] }), { index: 2, kind: 'Custom:17' });
    assert.equal(instructionFailure('BlockhashNotFound'), null);
    assert.equal(instructionFailure({ InstructionError: 'x' }), null);
  });
});
