/**
 * The deposit's sealed record (src/treasury/deposit-record-box.ts, docs/decisions.md "The deposit carries its order's
 * record"), read as an outsider reads the chain: one length whatever it holds, random each time, and sharing no run of
 * bytes with its order's payout record; opened only by the seed's secret, refused when altered.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { depositRecordPublicKey, openDepositRecord, sealDepositRecord, SEALED_DEPOSIT_RECORD_LENGTH } from '../../src/treasury/deposit-record-box.ts';
import { sealRecord } from '../../src/treasury/record-cipher.ts';
import { seededRandom } from '../../src/support/random.ts';
import type { DepositRecord } from '../../src/domain/chain-record.ts';

const SECRET = new Uint8Array(randomBytes(32));
const PUBLIC = depositRecordPublicKey(SECRET);
const TRK = 'trk_4Kq8XyZa1bCdEfGhJkLmNp';
const record = (over: Partial<DepositRecord> = {}): DepositRecord => ({
  kind: 'deposit', part: 0, trackingId: TRK, accountId: 'acc_abcdefghijkmnopq', mode: 'exact_out', sourceAssetId: 'usdc', destinationAssetId: 'sol',
  recipient: new Uint8Array(32).fill(9), amountOut: 1_000_000n, ...over,
});

/** Byte runs of `n` one buffer has that the other has too. */
function sharedRuns(a: Buffer, b: Buffer, n: number): number {
  const seen = new Set<string>();
  for (let i = 0; i + n <= a.length; i++) seen.add(a.subarray(i, i + n).toString('hex'));
  let shared = 0;
  for (let i = 0; i + n <= b.length; i++) if (seen.has(b.subarray(i, i + n).toString('hex'))) shared++;
  return shared;
}

test('one length whatever it holds, a different sealing every time, opened only by the secret', () => {
  const random = seededRandom(85);
  const memos = [record(), record(), record({ amountOut: 1n, trackingId: 'trk_1111111111111111111111' }), record({ amountOut: 2n ** 63n, mode: 'exact_in' })].map((r) => sealDepositRecord(PUBLIC, r, random));
  for (const m of memos) assert.equal(m.length, SEALED_DEPOSIT_RECORD_LENGTH);
  assert.equal(new Set(memos).size, memos.length, 'the same record seals to unrelated bytes');
  assert.equal(sharedRuns(Buffer.from(memos[0]!, 'base64'), Buffer.from(memos[1]!, 'base64'), 6), 0, 'two sealings of one record share no 6-byte run');
  assert.deepEqual(openDepositRecord(SECRET, memos[0]!), record());
  assert.equal(openDepositRecord(new Uint8Array(randomBytes(32)), memos[0]!), null, 'another seed opens nothing');
  const altered = Buffer.from(memos[0]!, 'base64');
  altered[40] = altered[40]! ^ 1;
  assert.equal(openDepositRecord(SECRET, altered.toString('base64')), null, 'an altered record is refused');
});

test("a deposit's record and its order's payout record share nothing a reader could match", () => {
  const random = seededRandom(86);
  for (let i = 0; i < 20; i++) {
    const deposit = Buffer.from(sealDepositRecord(PUBLIC, record(), random), 'base64');
    const payout = Buffer.from(sealRecord(new Uint8Array(32).fill(7), { kind: 'payout', trackingId: TRK, part: 0, accountId: 'acc_abcdefghijkmnopq', mode: 'exact_out', sourceAssetId: 'usdc', destinationAssetId: 'sol' }, random), 'base64');
    assert.equal(sharedRuns(deposit, payout, 6), 0);
  }
});
